import Foundation
import PhotometerHost
import PhotometerProtocol
import PluginSupervisor
import Synchronization
import TestSupport
import Testing

/// How the host supervises plugin processes that are slow, busy, crash, hang or write junk.
@Suite struct PluginSupervisionTests {
  let photo = ReadRequest(image: Image(data: TestImages.png(1)))

  func status(_ plugins: PluginSet, _ name: String) async -> PluginStatus? {
    await plugins.statuses().first { $0.name == name }
  }

  /// Requests the plugin has taken: answered, in flight (its one instance busy) or waiting.
  func arrived(_ plugins: PluginSet, _ name: String) async -> Int {
    guard let status = await status(plugins, name) else { return 0 }
    return Int(status.requests) + Int(status.queued) + (status.state == .busy ? 1 : 0)
  }

  func error(_ result: ReadResult, _ plugin: String) -> ErrorReply? {
    guard case .failure(let error)? = result.engines.first(where: { $0.plugin == plugin })?.outcome else { return nil }
    return error
  }

  func text(_ result: ReadResult, _ plugin: String) -> String? {
    result.engines.first { $0.plugin == plugin }?.value?.text
  }

  @Test func aPoolServesConcurrentRequestsWithSeveralProcesses() async throws {
    let plugins = makePluginSet([testPlugin("pool", instances: 2, options: ["text": "{pid}", "delay_ms": "300"])])
    await plugins.startAll()
    let pids = try #require(await status(plugins, "pool")?.pids)
    #expect(pids.count == 2)
    async let first = plugins.read(photo)
    async let second = plugins.read(photo)
    let answered = Set([text(try await first, "pool"), text(try await second, "pool")].compactMap { $0 })
    #expect(answered == Set(pids.map { "\($0)" }))
    await plugins.stopAll()
  }

  /// A survey's answers are completed by asking again only the plugins whose survey reading may
  /// differ (refinable) and those the survey left out (shadows, when the request asks for
  /// them); the others' answers stand.
  @Test func completingASurveyAsksOnlyTheRefinableAndTheLeftOut() async throws {
    let plugins = makePluginSet([
      testPlugin("sure", options: ["text": "1{survey}"]),
      testPlugin("unsure", options: ["text": "2{survey}", "refinable": "yes"]),
      testPlugin("shadow", mode: .shadow, options: ["text": "3{survey}"]),
    ])
    await plugins.startAll()
    var survey = photo
    survey.survey = true
    survey.shadows = true
    let surveyed = try await plugins.readAnswers(survey)
    #expect(surveyed.map { $0.value?.text } == ["11", "21"])
    var unasked = survey
    unasked.shadows = false
    #expect(await plugins.completedReadAnswers(unasked, survey: surveyed).map(\.plugin) == ["sure", "unsure"])
    #expect(await arrived(plugins, "shadow") == 0)
    let completed = await plugins.completedReadAnswers(survey, survey: surveyed)
    #expect(completed.map(\.plugin) == ["sure", "unsure", "shadow"])
    #expect(completed.map { $0.value?.text } == ["11", "20", "30"])
    #expect(await arrived(plugins, "sure") == 1)
    #expect(await arrived(plugins, "unsure") == 3)
    #expect(await arrived(plugins, "shadow") == 1)
    #expect(await plugins.completedReadAnswers(photo, survey: completed) == completed, "nothing left to ask")
    await plugins.stopAll()
  }

  @Test func queuedRequestsAreServedInTheOrderTheyCame() async throws {
    let plugins = makePluginSet([testPlugin("one", maxQueued: 10, options: ["delay_ms": "100"])])
    await plugins.startAll()
    let order = OrderLog()
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<5 {
        group.addTask {
          let request = ReadRequest(image: Image(data: TestImages.png(1)), options: ["text": "\(index)"])
          if let result = try? await plugins.read(request) { order.append(result.value) }
        }
        // Each request joins the line before the next is sent, so the order sent is the order come.
        let joined = await eventually { await arrived(plugins, "one") > index }
        #expect(joined, "request \(index) never reached the plugin's pool")
      }
    }
    #expect(order.values == ["0", "1", "2", "3", "4"])
    await plugins.stopAll()
  }

  @Test func aFullQueueRefusesMoreAsBusy() async throws {
    let plugins = makePluginSet([testPlugin("slow", maxQueued: 2, options: ["text": "1", "delay_ms": "400"])])
    await plugins.startAll()
    let results = await withTaskGroup(of: ReadResult?.self) { group in
      for _ in 0..<5 {
        group.addTask { try? await plugins.read(photo) }
      }
      return await group.reduce(into: []) { $0.append($1) }
    }
    let errors = results.compactMap { $0.flatMap { error($0, "slow") } }
    #expect(results.compactMap { $0.flatMap { text($0, "slow") } }.count == 3)
    #expect(errors.count == 2)
    #expect(errors.allSatisfy { $0.code == .busy && $0.message.contains("max_queued") })
    await plugins.stopAll()
  }

  @Test func aTimedOutProcessIsKilledAndReplaced() async throws {
    let plugins = makePluginSet([
      testPlugin("hanging", timeout: .milliseconds(300), options: ["text": "1", "behaviour": "hang"]),
      testPlugin("fine", options: ["text": "2"]),
    ])
    await plugins.startAll()
    let before = try #require(await status(plugins, "hanging")?.pids.first)
    let result = try await plugins.read(photo)
    #expect(error(result, "hanging")?.code == .timeout)
    #expect(result.value == "2")
    #expect(await eventually { !processExists(before) })
    #expect(await eventually { await status(plugins, "hanging")?.pids.first.map { $0 != before } == true })
    let after = try #require(await status(plugins, "hanging"))
    #expect(after.timeouts == 1)
    #expect(after.restarts == 1)
    await plugins.stopAll()
  }

  @Test(arguments: [("crash", "signal 6"), ("signal", "signal 9"), ("exit", "status 3")])
  func aCrashFailsItsRequestAndTheProcessRestarts(behaviour: String, expected: String) async throws {
    let plugins = makePluginSet([testPlugin("fragile", options: ["text": "1", "behaviour": behaviour])])
    await plugins.startAll()
    let before = try #require(await status(plugins, "fragile")?.pids.first)
    let failure = try #require(error(try await plugins.read(photo), "fragile"))
    #expect(failure.code == .pluginFailed)
    #expect(failure.message.contains(expected))
    #expect(await eventually { await status(plugins, "fragile")?.pids.first.map { $0 != before } == true })
    #expect(await status(plugins, "fragile")?.restarts == 1)
    await plugins.stopAll()
  }

  @Test(arguments: [("garbage", "ff ff ff ff"), ("bad-frame", "ff ff ff ff")])
  func garbageOnStandardOutputIsACrashQuotedInTheError(behaviour: String, bytes: String) async throws {
    let plugins = makePluginSet([testPlugin("junk", options: ["text": "1", "behaviour": behaviour])])
    await plugins.startAll()
    let before = try #require(await status(plugins, "junk")?.pids.first)
    let failure = try #require(error(try await plugins.read(photo), "junk"))
    #expect(failure.code == .pluginFailed)
    #expect(failure.message.contains(bytes))
    #expect(await eventually { !processExists(before) })
    #expect(await eventually { await status(plugins, "junk")?.pids.first.map { $0 != before } == true })
    await plugins.stopAll()
  }

  @Test func aCrashLoopBacksOffThenQuarantines() async throws {
    let plugins = makePluginSet([testPlugin("looping", options: ["text": "1", "behaviour": "crash"])])
    await plugins.startAll()
    let first = try #require(await status(plugins, "looping")?.pids.first)
    _ = try await plugins.read(photo)  // crash 1: restarts at once
    // Ready again as another process: the state may still read "ready" before the end is seen.
    #expect(
      await eventually {
        let now = await status(plugins, "looping")
        return now?.state == .ready && now?.pids.first.map { $0 != first } == true
      })
    _ = try await plugins.read(photo)  // crash 2, soon after a restart: backs off
    #expect(await eventually { await status(plugins, "looping")?.state == .restarting })
    let backingOff = try #require(error(try await plugins.read(photo), "looping"))
    #expect(backingOff.message.contains("restarting after a crash loop"))
    #expect(await eventually { await status(plugins, "looping")?.state == .ready })
    _ = try await plugins.read(photo)  // crash 3: quarantined
    #expect(await eventually { await status(plugins, "looping")?.state == .quarantined })
    let quarantined = try #require(error(try await plugins.read(photo), "looping"))
    #expect(quarantined.message.contains("quarantined after 3 crashes"))
    #expect(await status(plugins, "looping")?.pids == [])
    await plugins.stopAll()
  }

  @Test func killingABusyPluginLosesNoRequest() async throws {
    let plugins = makePluginSet([
      testPlugin("victim", instances: 2, maxQueued: 200, options: ["text": "7", "delay_ms": "10"])
    ])
    await plugins.startAll()
    let pid = try #require(await status(plugins, "victim")?.pids.first)
    let results = await withTaskGroup(of: ReadResult?.self) { group in
      for index in 0..<100 {
        group.addTask { try? await plugins.read(photo) }
        if index == 30 {
          kill(pid, SIGKILL)
        }
      }
      return await group.reduce(into: []) { $0.append($1) }
    }
    #expect(results.count == 100)
    let answered = results.compactMap { $0 }
    #expect(answered.count == 100)
    let served = answered.filter { text($0, "victim") == "7" }.count
    let failed = answered.filter { error($0, "victim") != nil }.count
    #expect(served + failed == 100)
    #expect(served > 0)
    await plugins.stopAll()
  }

  @Test func aPluginWithoutItsConfiguredRoleIsRefused() async throws {
    let plugins = makePluginSet([testPlugin("reader-only", roles: [.identify], options: ["roles": "read"])])
    await plugins.startAll()
    let status = try #require(await status(plugins, "reader-only"))
    #expect(status.state != .ready)
    #expect(status.reason.contains("offers only read"))
    await plugins.stopAll()
  }

  @Test func aProgramWhoseChecksumDiffersIsNotStarted() async throws {
    var pinned = testPlugin("pinned", options: ["text": "1"])
    pinned.sha256 = String(repeating: "0", count: 64)
    let plugins = makePluginSet([pinned])
    await plugins.startAll()
    let status = try #require(await status(plugins, "pinned"))
    #expect(status.state == .failed)
    #expect(status.reason.contains("refusing to start it"))
    await plugins.stopAll()
  }

  @Test func aProgramWithTheRightChecksumStarts() async throws {
    let checksum = try await runCommand("/usr/bin/sha256sum", [Products.executable("photometer-testplugin")])
    var pinned = testPlugin("pinned", options: ["text": "1"])
    pinned.sha256 = try #require(checksum.standardOutput.split(separator: " ").first).uppercased()
    let plugins = makePluginSet([pinned])
    await plugins.startAll()
    #expect(await status(plugins, "pinned")?.state == .ready)
    await plugins.stopAll()
  }
}

/// Values appended from several tasks.
final class OrderLog: Sendable {
  private let lock = Mutex<[String]>([])
  func append(_ value: String) { lock.withLock { $0.append(value) } }
  var values: [String] { lock.withLock { $0 } }
}
