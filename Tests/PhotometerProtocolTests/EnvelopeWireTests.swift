import PhotometerProtocol
import Testing

@Suite struct EnvelopeWireTests {
  static let image = Image(data: [0xFF, 0xD8, 0, 1, 2], name: "meter.jpg")
  static let reading = EngineReading(
    text: "01234.5", confidence: 0.75,
    symbols: [
      Symbol(
        text: "0", confidence: 0.5, box: Rect(x: 1, y: 2, width: 3, height: 4),
        alternatives: [Alternative(text: "8", confidence: 0.25)], roll: WheelRoll(from: "9", fraction: 0.375)),
      Symbol(text: "1", confidence: 0.5),
    ], refinable: true)
  static let candidate = Candidate(
    meter: "gas", score: 42, confidence: 0.875, outline: [Point(x: 1, y: 2), Point(x: 3.5, y: 4)])

  /// One message of every kind, with every field set to something other than its default.
  static let messages: [Message] = [
    .hello(
      Hello(
        version: ProtocolVersion(major: 1, minor: 3), name: "plugin", softwareVersion: "2.1",
        roles: [.read, .identify, .dials],
        options: ["a": "1", "b": ""], acceptedOptions: [OptionSpec(name: "a", description: "the a", defaultValue: "0")],
        details: ["engine": "x"])),
    .error(ErrorReply(.pluginFailed, "it crashed", plugin: "ocr")),
    .error(ErrorReply(ErrorCode(rawValue: 999), "from the future")),
    .ping(payload: []),
    .ping(payload: [1, 2, 3]),
    .pong(payload: [4, 5]),
    .cancel(requestID: .max),
    .shutdown,
    .shutdownComplete,
    .read(
      ReadRequest(
        image: image, roi: Rect(x: 10, y: 20, width: 30, height: 40), meter: "gas", digits: 8, decimals: 3,
        options: ["k": "v"],
        examples: [Example(key: "7:0123", value: "0123"), Example(key: "9:0124", value: "0124", crop: [1, 2])])),
    .read(ReadRequest(image: Image(data: []))),
    .read(
      ReadRequest(
        image: image,
        dials: [
          Dial(region: Rect(x: 1, y: 2, width: 30, height: 30), factor: 0.1),
          Dial(region: Rect(x: 40, y: 2, width: 30, height: 30), factor: 0.01, counterClockwise: true),
        ])),
    .read(ReadRequest(image: image, survey: true)),
    .read(ReadRequest(image: image, foundRow: true)),
    .read(ReadRequest(image: image, shadows: true)),
    .identify(
      IdentifyRequest(
        image: image,
        references: [Reference(meter: "gas", image: image, sha256: "ab", roi: Rect(x: 0, y: 0, width: 5, height: 5))])),
    .listPlugins,
    .reloadPlugins,
    .previewMeter(name: "Water", photo: nil),
    .previewMeter(name: "Water", photo: image),
    .meterPreview(image),
    .readResult(
      ReadResult(
        value: "00123.45", confidence: 0.8, engines: [], flags: [.dialsNotRead], summary: "Water: 00123.45",
        dials: [
          Symbol(text: "4", confidence: 0.9, box: Rect(x: 1, y: 2, width: 30, height: 30)),
          Symbol(
            text: "5", confidence: 0.7, box: Rect(x: 40, y: 2, width: 30, height: 30),
            roll: WheelRoll(from: "5", fraction: 0.25)),
        ])),
    .readResult(
      ReadResult(
        value: "36.7", confidence: 0.9, engines: [], flags: [], summary: "Reads 36.7",
        windows: [
          Window(
            box: Rect(x: 10, y: 20, width: 120, height: 60), value: "36.7", confidence: 0.9,
            digits: Rect(x: 18, y: 34, width: 100, height: 30)),
          Window(box: Rect(x: 10, y: 90, width: 80, height: 30), value: "10:42", confidence: 0.6),
        ])),
    .readResult(
      ReadResult(
        value: "01234.5", confidence: 0.5,
        engines: [
          EngineAnswer(plugin: "a", version: "1", outcome: .success(reading), milliseconds: 1.5, voted: true),
          EngineAnswer(
            plugin: "b", version: "2", outcome: .failure(ErrorReply(.timeout, "slow", plugin: "b")), milliseconds: 9,
            voted: false),
        ], flags: [.enginesDisagree], summary: "Reads 01234.5")),
    .identifyResult(
      IdentifyResult(
        meter: "gas", confidence: 0.9, candidates: [candidate],
        plugins: [
          PluginIdentification(plugin: "h", version: "1", outcome: .success([candidate]), milliseconds: 2, voted: true),
          PluginIdentification(
            plugin: "k", version: "1", outcome: .failure(ErrorReply(.pluginFailed, "gone", plugin: "k")),
            milliseconds: 3, voted: true),
        ], summary: "This is gas")),
    .pluginList([
      PluginStatus(
        name: "ocr", state: .ready, pids: [42, 43], roles: [.read], version: "5.3", mode: "shadow", instances: 2,
        restarts: 1, requests: 2, errors: 3, timeouts: 1, queued: 4, medianMilliseconds: 4.5, p95Milliseconds: 9.5,
        reason: "")
    ]),
    .engineReading(reading),
    .engineReading(EngineReading(text: "12", confidence: 0.5, missingExamples: ["7:0123", "9:0124"])),
    .pluginCandidates(PluginCandidates([candidate], missingReferences: ["ab12"])),
    .addMeter(AddMeterRequest(meter: meter, references: [image, image])),
    .getMeter(name: "Gas", includePhotos: true),
    .listMeters,
    .editMeter(EditMeterRequest(name: "Gas", changes: meter, fields: ["notes", "range"], addReferences: [image])),
    .removeMeter(name: "Gas", withReadings: true),
    .addReading(
      AddReadingRequest(
        meter: "Gas", value: "01234.567", unit: "m3", takenAt: 1_700_000_000_000, photo: image, source: .ocr,
        confidence: 0.5,
        engines: [EngineAnswer(plugin: "a", version: "1", outcome: .success(reading), milliseconds: 1, voted: true)],
        crop: [1, 2])),
    .addReading(AddReadingRequest(meter: "Gas", value: "5")),
    // 1970-01-01T00:00Z is a time like any other, not "no time given".
    .addReading(AddReadingRequest(meter: "Gas", value: "5", takenAt: 0)),
    .confirmReading(id: 7, value: "01234.568"),
    .deleteReading(id: 7),
    .getReading(id: 7, withCrop: true),
    .listReadings(ListReadingsRequest(meter: "Gas", from: 1, to: 2, unit: "L", withCrops: true, limit: 20)),
    .meterInfo(meter),
    .meterList([meter, Meter(name: "Sugar", kind: .glucose)]),
    .meterRemoved(name: "Gas", readingsRemoved: 12),
    .readingInfo(storedReading),
    .readingList([storedReading]),
    .readingDeleted(id: 9),
    .getStats(StatsRequest(meter: "Gas", period: .week, from: 1, to: 2, unit: "L", timeZone: "Europe/Berlin")),
    .exportData,
    .importData(csv: "record,meter\nmeter,Gas\n"),
    .renderChart(
      StatsRequest(meter: "Gas", from: 5, unit: "m3", timeZone: "UTC"), size: ChartSize(width: 640, height: 320)),
    .renderChart(
      StatsRequest(meter: "Gas", period: .month), size: ChartSize(width: 800, height: 400), content: .consumption),
    .stats(
      Stats(
        meter: "Gas", unit: "m3", counting: true,
        rows: [StatsRow(start: 1, end: 2, label: "2026-11-20", count: 3, consumption: 4.5, min: 1, max: 2, mean: 1.5)])),
    .exportedData(csv: "a,b\n", meters: 1, readings: 2),
    .importedData(meters: 1, readings: 2),
    .chart(svg: "<svg/>"),
  ]

  static let meter = Meter(
    id: 3, name: "Gas", kind: .gas, unit: "m3", createdAt: 1_700_000_000_000,
    roi: Rect(x: 1, y: 2, width: 3, height: 4),
    digits: 8, decimals: 3, countsUp: true, maxRatePerHour: 12.5, range: 0...99_999, notes: "cellar",
    references: [ReferencePhoto(sha256: "ab", width: 640, height: 480, bytes: 1234, image: image)], readingCount: 42,
    dials: [Dial(region: Rect(x: 5, y: 6, width: 70, height: 70), factor: 0.0001, counterClockwise: true)],
    extended: true)

  static var storedReading: StoredReading {
    var reading = StoredReading(
      id: 5, meter: "Gas", value: "01234.567", numeric: 1234.567, unit: "m3", takenAt: 1, recordedAt: 2,
      source: .corrected,
      confidence: 0.75, verified: true, crop: [9],
      engines: [EngineAnswer(plugin: "a", version: "1", outcome: .success(reading), milliseconds: 1, voted: true)])
    reading.displayValue = "1234567"
    reading.displayUnit = "L"
    return reading
  }

  @Test(arguments: messages)
  func roundTripsEveryMessageKind(message: Message) throws {
    let envelope = Envelope(requestID: 77, message: message)
    #expect(try Envelope(serialized: envelope.serialized()) == envelope)
  }

  @Test func framesAreTheLengthThenTheEnvelope() {
    let envelope = Envelope(requestID: 1, message: .ping(payload: [1]))
    let payload = envelope.serialized()
    #expect(envelope.framed() == Varint.encode(UInt64(payload.count)) + payload)
  }

  @Test func encodingIsRepeatable() {
    let envelope = Envelope(requestID: 3, message: Self.messages[0])
    #expect(envelope.serialized() == envelope.serialized())
  }

  @Test func rejectsBytesThatAreNotAnEnvelope() {
    #expect(throws: UndecodableFrame(requestID: 0, reason: .undecodable)) {
      try Envelope(serialized: [0xFF, 0xFF, 0xFF])
    }
  }

  @Test func rejectsAnEnvelopeWithoutABody() {
    // An empty frame is a valid, all-default envelope: request 0 and no message.
    #expect(throws: UndecodableFrame(requestID: 0, reason: .unknownMessage(fieldNumber: nil))) {
      try Envelope(serialized: [])
    }
  }

  @Test func rejectsAnUnknownMessageKindNamingTheRequest() {
    // request_id = 9; field 100 (a message kind from a later version), length-delimited, empty.
    let bytes: [UInt8] = [0x08, 0x09, 0xA2, 0x06, 0x00]
    #expect(throws: UndecodableFrame(requestID: 9, reason: .unknownMessage(fieldNumber: 100))) {
      try Envelope(serialized: bytes)
    }
  }

  @Test func rejectsAnUnknownFieldInsideAKnownMessage() {
    // request_id = 4; ping (field 4) holding field 15 as a varint.
    let bytes: [UInt8] = [0x08, 0x04, 0x22, 0x02, 0x78, 0x01]
    #expect(
      throws: UndecodableFrame(requestID: 4, reason: .unknownField(message: "photometer.v1.Ping", fieldNumber: 15))
    ) {
      try Envelope(serialized: bytes)
    }
  }

  @Test func rejectsAnUnknownFieldDeepInARepeatedMessage() {
    // An IdentifyRequest whose first reference's image carries field 9, built by hand.
    let image: [UInt8] = [0x0A, 0x01, 0x01, 0x48, 0x01]  // data = [1]; field 9 varint 1
    let referenceBytes: [UInt8] = [0x0A, 0x01, 0x6D, 0x12, UInt8(image.count)] + image  // meter "m"; image
    let identify: [UInt8] = [0x12, UInt8(referenceBytes.count)] + referenceBytes  // references
    let bytes: [UInt8] = [0x08, 0x02, 0x8A, 0x01, UInt8(identify.count)] + identify  // request 2; identify (field 17)
    #expect(
      throws: UndecodableFrame(requestID: 2, reason: .unknownField(message: "photometer.v1.Image", fieldNumber: 9))
    ) {
      try Envelope(serialized: bytes)
    }
  }

  /// Inputs the fuzzer found (Fuzzing/): they once trapped converting a role or count.
  @Test(arguments: [
    [
      0x08, 0x01, 0x12, 0x16, 0x08, 0x01, 0x1A, 0x04, 0x73, 0x65, 0x65, 0x64, 0x22, 0x01, 0x30, 0x2A, 0x09, 0xFF, 0xFF,
      0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x70, 0x02,
    ] as [UInt8],
    [0x08, 0x01, 0x12, 0x0A, 0x28, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x28, 0x02, 0x08, 0x01],
  ])
  func decodesOutOfRangeValuesWithoutTrapping(bytes: [UInt8]) {
    _ = try? Envelope(serialized: bytes)
  }

  @Test func dropsARoleFromANewerPeer() throws {
    // A Hello whose roles are 4294967295 (not a role this peer knows) and 2 (read).
    let bytes: [UInt8] = [0x08, 0x01, 0x12, 0x0A, 0x28, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x28, 0x02, 0x08, 0x01]
    guard case .hello(let hello) = try Envelope(serialized: bytes).message else {
      Issue.record("expected a Hello")
      return
    }
    #expect(hello.roles == [.read])
  }

  @Test func keepsErrorCodesFromANewerPeer() throws {
    let envelope = Envelope(requestID: 1, message: .error(ErrorReply(ErrorCode(rawValue: 500), "new")))
    let decoded = try Envelope(serialized: envelope.serialized())
    guard case .error(let reply) = decoded.message else {
      Issue.record("expected an error")
      return
    }
    #expect(reply.code.rawValue == 500)
    #expect(reply.code.description == "error-500")
  }

  @Test func refusesAnotherMajorVersionNamingBoth() {
    let host = Hello(name: "photometer-host", softwareVersion: "1")
    let peer = Hello(version: ProtocolVersion(major: 2, minor: 0), name: "client", softwareVersion: "1")
    let refusal = host.refusal(ofPeer: peer)
    #expect(refusal?.code == .unsupportedVersion)
    #expect(refusal?.message.contains("2.0") == true)
    #expect(refusal?.message.contains("\(ProtocolVersion.current)") == true)
    #expect(
      host.refusal(ofPeer: Hello(version: ProtocolVersion(major: 1, minor: 9), name: "c", softwareVersion: "1")) == nil)
  }

  @Test func recordedEntriesReadBackFrameByFrame() throws {
    let entries = [
      Recorded(
        direction: .request, at: 1_763_800_000_000, envelope: Envelope(requestID: 7, message: .ping(payload: [1]))),
      Recorded(
        direction: .reply, at: 1_763_800_000_001, envelope: Envelope(requestID: 7, message: .pong(payload: [1]))),
    ]
    var decoder = FrameDecoder()
    decoder.append(entries.flatMap { $0.framed() })
    var decoded: [Recorded] = []
    while let frame = try decoder.nextFrame() {
      decoded.append(try Recorded(serialized: frame))
    }
    #expect(decoded == entries)
    #expect(throws: WireError.self) { try Recorded(serialized: [0xFF, 0xFF]) }
  }
}
