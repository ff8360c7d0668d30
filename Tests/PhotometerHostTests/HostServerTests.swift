import PhotometerHost
import PhotometerProtocol
import PluginSupervisor
import TestSupport
import Testing

/// The host server in this process, over pipes, with test plugins as real child processes.
@Suite struct HostServerTests {
  let image = Image(data: TestImages.png(1), name: "photo.png")

  @Test func answersTheHandshakeWithItsVersionAndRoles() async throws {
    let host = HostHarness(plugins: [testPlugin("a", roles: [.read])])
    let hello = try await host.handshake()
    #expect(hello.name == "photometer-host")
    #expect(hello.version == .current)
    #expect(hello.roles == [.read])
    #expect(await host.finish() == 0)
  }

  @Test func startsEachPluginWhenARequestFirstNeedsIt() async throws {
    let host = HostHarness(
      plugins: [testPlugin("reader", roles: [.read]), testPlugin("matcher", roles: [.identify])],
      pluginStart: .onDemand)
    let hello = try await host.handshake()
    #expect(Set(hello.roles) == [.read, .identify])
    func pids() async -> [[Int32]] {
      var pids: [[Int32]] = []
      for pool in host.plugins.pools { pids.append(await pool.status().pids) }
      return pids
    }
    // A store request starts none.
    guard case .meterList = try await host.client.request(.listMeters) else {
      Issue.record("expected a meter list")
      return
    }
    #expect(await pids() == [[], []])
    // A read of a window (no meter to identify) starts the reader alone.
    let reply = try await host.client.request(
      .read(ReadRequest(image: image, roi: Rect(x: 0, y: 0, width: 8, height: 8))))
    guard case .readResult(let result) = reply else {
      Issue.record("expected a ReadResult, got \(reply.kind)")
      return
    }
    #expect(result.engines.map(\.plugin) == ["reader"])
    let afterRead = await pids()
    #expect(afterRead[0].count == 1 && afterRead[1].isEmpty)
    // A status request starts them all, so it says how each starts.
    guard case .pluginList(let statuses) = try await host.client.request(.listPlugins) else {
      Issue.record("expected a plugin list")
      return
    }
    #expect(statuses.map(\.state) == [.ready, .ready])
    #expect(statuses[0].pids == afterRead[0])
    #expect(await host.finish() == 0)
  }

  @Test func requiresTheHandshakeFirst() async throws {
    let host = HostHarness(plugins: [])
    await #expect(throws: ErrorReply(.handshakeRequired, "send Hello first, not Ping")) {
      try await host.client.request(.ping(payload: []))
    }
    try await host.handshake()
    #expect(try await host.client.request(.ping(payload: [7])) == .pong(payload: [7]))
    #expect(await host.finish() == 0)
  }

  @Test func refusesAnotherMajorVersionAndCloses() async throws {
    let host = HostHarness(plugins: [])
    let future = Hello(version: ProtocolVersion(major: 2, minor: 0), name: "future-client", softwareVersion: "9")
    do {
      _ = try await host.client.request(.hello(future))
      Issue.record("the host accepted protocol 2.0")
    } catch let error as ErrorReply {
      #expect(error.code == .unsupportedVersion)
      #expect(error.message.contains("2.0") && error.message.contains("\(ProtocolVersion.current)"))
    }
    #expect(await host.exitStatus == 1)
  }

  @Test func votesOnTheReadPluginsAnswers() async throws {
    let host = HostHarness(plugins: [
      testPlugin("a", options: ["text": "00123"]),
      testPlugin("b", weight: 2, options: ["text": "00128"]),
      testPlugin("shadow", mode: .shadow, options: ["text": "99999", "confidence": "1"]),
    ])
    try await host.handshake()
    let reply = try await host.client.request(.read(ReadRequest(image: image, shadows: true)))
    guard case .readResult(let result) = reply else {
      Issue.record("expected a ReadResult, got \(reply.kind)")
      return
    }
    #expect(result.value == "00128")
    #expect(result.engines.map(\.plugin) == ["a", "b", "shadow"])
    #expect(result.engines.map(\.voted) == [true, true, false])
    #expect(result.engines.map(\.version) == ["1.0.0", "1.0.0", "1.0.0"])
    #expect(result.flags.contains(.enginesDisagree))
    // b's belief in the 8 (0.9, the rest 0.1/9 a digit) tilted by a's, at half b's weight:
    // 0.9 / (0.9 + sqrt(0.9 x 0.1/9) + 8 x 0.1/9) = 81/98.
    #expect(abs(result.confidence - 81.0 / 98) < 1e-9)
    #expect(result.summary.contains("00128"))
    #expect(await host.finish() == 0)
  }

  /// A shadow's answer is kept only with a saved reading: a read that saves nothing asks the
  /// shadow only when the client asks for its answer, or speaks a protocol too old to ask (it got
  /// the shadows' answers with every read).
  @Test func aShadowReadsOnlyWhenItsAnswerIsAskedFor() async throws {
    let plugins = [
      testPlugin("a", options: ["text": "00123"]),
      testPlugin("shadow", mode: .shadow, options: ["text": "99999"]),
    ]
    func engines(_ host: HostHarness, _ request: ReadRequest) async throws -> [String] {
      guard case .readResult(let result) = try await host.client.request(.read(request)) else {
        Issue.record("expected a ReadResult")
        return []
      }
      return result.engines.map(\.plugin)
    }
    func asked(_ host: HostHarness) async throws -> UInt64? {
      guard case .pluginList(let list) = try await host.client.request(.listPlugins) else { return nil }
      return list.first { $0.name == "shadow" }?.requests
    }
    let host = HostHarness(plugins: plugins)
    try await host.handshake()
    #expect(try await engines(host, ReadRequest(image: image)) == ["a"])
    #expect(try await asked(host) == 0, "the shadow read for a reply that drops its answer")
    #expect(try await engines(host, ReadRequest(image: image, shadows: true)) == ["a", "shadow"])
    #expect(try await asked(host) == 1)
    #expect(await host.finish() == 0)

    let older = HostHarness(plugins: plugins)
    let before = ProtocolVersion(major: 1, minor: ProtocolVersion.askedShadows.minor - 1)
    _ = try await older.client.request(.hello(Hello(version: before, name: "older-client", softwareVersion: "1.0")))
    #expect(try await engines(older, ReadRequest(image: image)) == ["a", "shadow"])
    #expect(await older.finish() == 0)
  }

  @Test func aWholePhotoGoesAsItCameAndARegionAsPNG() async throws {
    let host = HostHarness(plugins: [testPlugin("a", options: ["text": "42"])])
    try await host.handshake()
    guard case .readResult(let whole) = try await host.client.request(.read(ReadRequest(image: image))),
      case .readResult(let region) = try await host.client.request(
        .read(ReadRequest(image: image, roi: Rect(x: 8, y: 4, width: 20, height: 10))))
    else {
      Issue.record("expected two ReadResults")
      return
    }
    #expect(whole.value == "42")
    #expect(whole.crop == Image(data: image.data, name: "crop.png"))
    #expect(region.crop?.name == "crop.png")
    #expect(region.crop?.data.starts(with: [0x89, 0x50, 0x4E, 0x47]) == true)
    #expect(region.crop?.data != image.data)
    #expect(await host.finish() == 0)
  }

  @Test func aCanaryTakesOnlyItsShareOfTheRequests() async throws {
    let host = HostHarness(plugins: [
      testPlugin("stable", options: ["text": "00123"]),
      testPlugin("canary", mode: .shadow, options: ["text": "00124"], share: 0.25),
    ])
    try await host.handshake()
    var served: [Bool] = []
    for _ in 0..<8 {
      guard
        case .readResult(let result) = try await host.client.request(.read(ReadRequest(image: image, shadows: true)))
      else {
        Issue.record("expected a ReadResult")
        return
      }
      #expect(result.value == "00123")
      served.append(result.engines.contains { $0.plugin == "canary" })
    }
    #expect(served == [false, false, false, true, false, false, false, true])
    #expect(await host.finish() == 0)
  }

  @Test func identifiesAmongTheGivenReferences() async throws {
    let host = HostHarness(plugins: [testPlugin("a"), testPlugin("b")])
    try await host.handshake()
    let references = [
      Reference(meter: "gas", image: Image(data: TestImages.png(9)), sha256: ""),
      Reference(meter: "water", image: image, sha256: ""),
    ]
    let reply = try await host.client.request(.identify(IdentifyRequest(image: image, references: references)))
    guard case .identifyResult(let result) = reply else {
      Issue.record("expected an IdentifyResult, got \(reply.kind)")
      return
    }
    #expect(result.meter == "water")
    #expect(result.confidence > 0.99)  // two plugins each as sure as a belief may be
    #expect(result.plugins.count == 2)
    #expect(await host.finish() == 0)
  }

  @Test func manyReferencesReachAPluginInBatches() async throws {
    // 130 references are sent 48 at a time: four calls, each well within the plugin's timeout.
    let host = HostHarness(plugins: [testPlugin("a", roles: [.identify])])
    try await host.handshake()
    let references = (0..<130).map {
      Reference(meter: "m\($0)", image: Image(data: TestImages.png($0 + 100)), sha256: "")
    }
    let query = Image(data: TestImages.png(177))
    let reply = try await host.client.request(.identify(IdentifyRequest(image: query, references: references)))
    guard case .identifyResult(let result) = reply else {
      Issue.record("expected an IdentifyResult, got \(reply.kind)")
      return
    }
    #expect(result.meter == "m77")
    let status = await host.plugins.statuses().first
    #expect(status?.requests == 4)
    #expect(await host.finish() == 0)
  }

  /// A matcher that is sure only among a few references proposes the right meter unsure among
  /// 1,001: the host looks again at the first 5 it ranked, and names it; a photo of no registered
  /// meter stays unknown after its second look.
  @Test func aSecondLookAtTheFirstProposedMetersNamesTheMeter() async throws {
    let host = HostHarness(plugins: [testPlugin("a", roles: [.identify], options: ["sure_among": "5"])])
    try await host.handshake()
    // 1,001 distinct small photos: 256 seeds in each of four widths.
    let references = (0...1000).map {
      Reference(
        meter: "m\($0)", image: Image(data: TestImages.png($0 % 256, width: UInt32(8 + $0 / 256), height: 8)),
        sha256: "")
    }
    func identify(_ photo: [UInt8]) async throws -> IdentifyResult? {
      let query = Image(data: photo)
      let reply = try await host.client.request(.identify(IdentifyRequest(image: query, references: references)))
      guard case .identifyResult(let result) = reply else {
        Issue.record("expected an IdentifyResult, got \(reply.kind)")
        return nil
      }
      return result
    }
    let named = try #require(try await identify(references[707].image.data))
    #expect(named.meter == "m707")
    #expect(named.summary.contains("second look"), "\(named.summary)")
    #expect(named.candidates.map(\.meter) == ["m707"])
    // The plugin's answer for all 1,001 is what the result reports, its first 20 meters.
    if case .success(let candidates) = named.plugins.first?.outcome {
      #expect(candidates.count == IdentifyResult.listed)
      #expect(candidates.first?.meter == "m707")
    } else {
      Issue.record("the plugin's first answer is missing")
    }
    let unknown = try #require(try await identify(TestImages.png(7, width: 40, height: 8)))
    #expect(unknown.meter.isEmpty)
    #expect(unknown.candidates.count == IdentifyResult.listed)
    #expect(await host.finish() == 0)
  }

  @Test func oneFailingPluginDoesNotStopTheVote() async throws {
    let host = HostHarness(plugins: [
      testPlugin("good", options: ["text": "42"]),
      testPlugin("crashing", options: ["text": "41", "behaviour": "crash"]),
      testPlugin("slow", timeout: .milliseconds(300), options: ["text": "40", "behaviour": "hang"]),
    ])
    try await host.handshake()
    guard case .readResult(let result) = try await host.client.request(.read(ReadRequest(image: image))) else {
      Issue.record("expected a ReadResult")
      return
    }
    #expect(result.value == "42")
    #expect(result.flags.contains(.engineFailed))
    let errors = result.engines.compactMap { answer -> ErrorReply? in
      if case .failure(let error) = answer.outcome { error } else { nil }
    }
    #expect(errors.map(\.plugin) == ["crashing", "slow"])
    #expect(errors.map(\.code) == [.pluginFailed, .timeout])
    #expect(errors[0].message.contains("signal 6"))
    // Both come back on the next request: the crashed one restarts, the hung one was replaced.
    let statuses = await host.plugins.statuses()
    #expect(statuses.first { $0.name == "good" }?.state == .ready)
    #expect(await host.finish() == 0)
  }

  @Test func answersEachOfAThousandPipelinedRequestsExactlyOnce() async throws {
    let host = HostHarness(plugins: [testPlugin("a", instances: 2, maxQueued: 1000, options: ["text": "7"])])
    try await host.handshake()
    let results = try await withThrowingTaskGroup(of: Message.self) { group in
      for index in 0..<1000 {
        group.addTask {
          index % 2 == 0
            // Small images: the in-process client writes on the cooperative threads, and 500
            // requests must fit the pipe while the host holds back its input (256 replies in flight).
            ? try await host.client.request(
              .read(ReadRequest(image: Image(data: TestImages.png(index, width: 8, height: 8)))))
            : try await host.client.request(.ping(payload: [UInt8(index % 256)]))
        }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(results.count == 1000)
    #expect(results.filter { if case .readResult(let r) = $0 { r.value == "7" } else { false } }.count == 500)
    #expect(results.filter { if case .pong = $0 { true } else { false } }.count == 500)
    #expect(host.client.pendingCount == 0)
    #expect(await host.finish() == 0)
  }

  @Test func cancelsARequestInFlight() async throws {
    let started = StartedFile()
    let host = RawHostHarness(plugins: [
      testPlugin("slow", options: ["text": "1", "delay_ms": "5000", "started_file": started.path])
    ])
    await host.handshake()
    host.peer.send(Envelope(requestID: 500, message: .read(ReadRequest(image: image))))
    #expect(await started.wait(), "the read never reached the plugin")
    host.peer.send(Envelope(requestID: 0, message: .cancel(requestID: 500)))
    let replies = await host.peer.replies(to: 500, count: 1)
    #expect(replies == [.error(ErrorReply(.cancelled, "the request was cancelled"))])
    #expect(await host.finish() == 0)
  }

  @Test func refusesADuplicateRequestID() async throws {
    let host = RawHostHarness(plugins: [testPlugin("slow", options: ["text": "1", "delay_ms": "300"])])
    await host.handshake()
    host.peer.send(Envelope(requestID: 900, message: .read(ReadRequest(image: image))))
    host.peer.send(Envelope(requestID: 900, message: .read(ReadRequest(image: image))))
    let replies = await host.peer.replies(to: 900, count: 2)
    #expect(replies.first.map { if case .error(let e) = $0 { e.code == .duplicateRequestID } else { false } } == true)
    #expect(replies.last.map { if case .readResult = $0 { true } else { false } } == true)
    #expect(await host.finish() == 0)
  }

  @Test func shutdownFinishesInFlightWorkThenAnswers() async throws {
    let started = StartedFile()
    let host = HostHarness(plugins: [
      testPlugin("slow", options: ["text": "5", "delay_ms": "300", "started_file": started.path])
    ])
    try await host.handshake()
    let read = Task { try await host.client.request(.read(ReadRequest(image: image))) }
    #expect(await started.wait(), "the read never reached the plugin")
    #expect(try await host.client.request(.shutdown) == .shutdownComplete)
    guard case .readResult(let result) = try await read.value else {
      Issue.record("the read in flight was not answered")
      return
    }
    #expect(result.value == "5")
    // Whether the host is still reading or already gone, a later request is not served.
    await #expect(throws: (any Error).self) { try await host.client.request(.ping(payload: [])) }
    #expect(await host.exitStatus == 0)
  }

  @Test func reportsMissingPluginsAndBadImages() async throws {
    let host = HostHarness(plugins: [testPlugin("identifier", roles: [.identify], options: ["roles": "identify"])])
    try await host.handshake()
    await #expect(throws: ErrorReply.self) { try await host.client.request(.read(ReadRequest(image: image))) }
    do {
      _ = try await host.client.request(.read(ReadRequest(image: image)))
    } catch let error as ErrorReply {
      #expect(error.code == .noPlugins)
    }
    for (data, reason) in [
      ([UInt8](), "the image is empty"), (Array("not a photo".utf8), "not a JPEG, PNG"),
      (TestImages.pngHeader(width: 50_000, height: 50_000), "50000x50000"),
    ] {
      do {
        _ = try await host.client.request(.identify(IdentifyRequest(image: Image(data: data), references: [])))
        Issue.record("a bad image was accepted")
      } catch let error as ErrorReply {
        #expect(error.code == .badImage)
        #expect(error.message.contains(reason))
      }
    }
    #expect(await host.finish() == 0)
  }

  @Test func aPhotoEveryPluginRefusesIsABadImageNotAnUnknownMeter() async throws {
    let refusing = ["behaviour": "bad-image"]
    let host = HostHarness(plugins: [
      testPlugin("a", options: refusing), testPlugin("b", options: refusing),
    ])
    try await host.handshake()
    do {
      _ = try await host.client.request(.read(ReadRequest(image: image)))
      Issue.record("a photo no plugin could decode was answered as if read")
    } catch let error as ErrorReply {
      #expect(error.code == .badImage)
      #expect(error.message.contains("every plugin refused the photo"))
    }
    #expect(await host.finish() == 0)
  }

  @Test func aReferencePhotoWhosePixelsDoNotDecodeIsRefused() async throws {
    let host = HostHarness(plugins: [])
    try await host.handshake()
    var broken = TestImages.png(1)
    broken[broken.count - 40] ^= 0xFF  // inside the pixel data: its CRC no longer matches
    do {
      _ = try await host.client.request(
        .addMeter(
          AddMeterRequest(meter: Meter(name: "Gas", kind: .gas), references: [Image(data: broken, name: "gas.png")])))
      Issue.record("a reference photo that does not decode was stored")
    } catch let error as ErrorReply {
      #expect(error.code == .badImage)
      #expect(error.message.hasPrefix("the reference photo gas.png does not decode"), "\(error.message)")
    }
    guard case .meterList(let meters) = try await host.client.request(.listMeters) else {
      Issue.record("no meter list")
      return
    }
    #expect(meters.isEmpty)
    #expect(await host.finish() == 0)
  }

  @Test func aPhotoOnePluginReadsIsAnsweredThoughAnotherRefusesIt() async throws {
    let host = HostHarness(plugins: [testPlugin("a", options: ["behaviour": "bad-image"]), testPlugin("b")])
    try await host.handshake()
    guard case .readResult(let result) = try await host.client.request(.read(ReadRequest(image: image))) else {
      Issue.record("no read result")
      return
    }
    #expect(result.engines.count == 2)
    #expect(await host.finish() == 0)
  }

  @Test func refusesMessagesThatAreNotRequests() async throws {
    let host = HostHarness(plugins: [])
    try await host.handshake()
    do {
      _ = try await host.client.request(.engineReading(EngineReading(text: "1", confidence: 1)))
      Issue.record("the host took a plugin's reply as a request")
    } catch let error as ErrorReply {
      #expect(error.code == .unknownMessage)
    }
    #expect(await host.finish() == 0)
  }

  @Test func framesOfAStreamConverge() async throws {
    let host = HostHarness(plugins: [testPlugin("reader", options: ["text": "0815", "confidence": "0.9"])])
    try await host.handshake()
    var finals: [Bool] = []
    for frame in 1...3 {
      let reply = try await host.client.request(.read(ReadRequest(image: image, stream: "camera")))
      guard case .readResult(let result) = reply else {
        Issue.record("frame \(frame) got \(reply.kind)")
        return
      }
      #expect(result.frames == UInt32(frame))
      finals.append(result.isFinal)
    }
    #expect(finals == [false, false, true])
    #expect(await host.finish() == 0)
  }

  @Test func listsItsPlugins() async throws {
    let host = HostHarness(plugins: [
      testPlugin("a", options: ["text": "1"]),
      PluginConfiguration(name: "missing", command: ["/nonexistent/plugin"], roles: [.read]),
    ])
    try await host.handshake()
    _ = try await host.client.request(.read(ReadRequest(image: image)))
    guard case .pluginList(let plugins) = try await host.client.request(.listPlugins) else {
      Issue.record("expected a PluginList")
      return
    }
    #expect(plugins.map(\.name) == ["a", "missing"])
    #expect(plugins[0].state == .ready)
    #expect(plugins[0].pids.count == 1 && plugins[0].pids[0] > 0)
    #expect(plugins[0].requests == 1)
    #expect(plugins[0].medianMilliseconds > 0)
    #expect(plugins[1].state == .failed)
    #expect(plugins[1].reason.contains("No such file"))
    #expect(await host.finish() == 0)
  }
}
