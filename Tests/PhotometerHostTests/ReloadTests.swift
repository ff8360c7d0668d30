import Foundation
import PhotometerHost
import PhotometerProtocol
import PluginSupervisor
import TestSupport
import Testing

/// Re-reading plugins.json while the host runs.
@Suite struct ReloadTests {
  let file: String

  /// Where plugin "b" notes each request it starts.
  let started = StartedFile()

  init() throws {
    file = try writePluginsFile(Self.configuration(b: "2", delay: "600", started: started))
  }

  static func configuration(b text: String, delay: String = "0", started: StartedFile? = nil, extra: String = "")
    -> String
  {
    let plugin = Products.executable("photometer-testplugin")
    let startedOption = started.map { #", "started_file": "\#($0.path)""# } ?? ""
    return """
      {"plugins": [
        {"name": "a", "command": ["\(plugin)"], "roles": ["read"], "options": {"text": "1"}},
        {"name": "b", "command": ["\(plugin)"], "roles": ["read"], "options": {"text": "\(text)", "delay_ms": "\(delay)"\(startedOption)}}
        \(extra)
      ]}
      """
  }

  func source() -> PluginSet.Source {
    let file = file
    return { () throws(ConfigurationError) in
      try PluginConfiguration.load(contentsOf: file, programFolder: Products.buildFolder)
    }
  }

  func rewrite(_ json: String) throws {
    try Data(json.utf8).write(to: URL(fileURLWithPath: file))
  }

  func texts(_ reply: Message) -> [String: String] {
    guard case .readResult(let result) = reply else { return [:] }
    return Dictionary(
      uniqueKeysWithValues: result.engines.compactMap { answer in answer.value.map { (answer.plugin, $0.text) } })
  }

  func pids(_ statuses: [PluginStatus]) -> [String: [Int32]] {
    Dictionary(uniqueKeysWithValues: statuses.map { ($0.name, $0.pids) })
  }

  @Test func replacesChangedPluginsKeepsTheOthersAndFinishesRequestsInFlight() async throws {
    let host = HostHarness(plugins: try source()(), source: source())
    try await host.handshake()
    guard case .pluginList(let before) = try await host.client.request(.listPlugins) else {
      Issue.record("no plugin list")
      return
    }
    // A request in flight on the old "b" while the configuration changes.
    let inFlight = Task { try await host.client.request(.read(ReadRequest(image: Image(data: TestImages.png(1))))) }
    #expect(await started.wait(), "the read never reached plugin b")
    try rewrite(
      Self.configuration(
        b: "3",
        extra: #", {"name": "c", "command": ["photometer-testplugin"], "roles": ["read"], "options": {"text": "4"}}"#))
    guard case .pluginList(let after) = try await host.client.request(.reloadPlugins) else {
      Issue.record("no plugin list after the reload")
      return
    }
    #expect(after.map(\.name) == ["a", "b", "c"])
    #expect(pids(after)["a"] == pids(before)["a"])
    #expect(pids(after)["b"] != pids(before)["b"])
    #expect(after.allSatisfy { $0.state == .ready })
    #expect(texts(try await inFlight.value) == ["a": "1", "b": "2"])
    #expect(
      texts(try await host.client.request(.read(ReadRequest(image: Image(data: TestImages.png(1)))))) == [
        "a": "1", "b": "3", "c": "4",
      ])
    let old = try #require(pids(before)["b"]?.first)
    #expect(await eventually { !processExists(old) })
    #expect(await host.finish() == 0)
  }

  @Test func aBrokenFileIsRefusedAndTheLastGoodConfigurationStays() async throws {
    let host = HostHarness(plugins: try source()(), source: source())
    try await host.handshake()
    try rewrite(#"{"plugins": [{"name": "a", "command": ["x"], "roles": ["read"], "timeout_ms": -5}]}"#)
    do {
      _ = try await host.client.request(.reloadPlugins)
      Issue.record("a broken configuration was accepted")
    } catch let error as ErrorReply {
      #expect(error.code == .invalidRequest)
      #expect(error.message.contains("plugin 'a': timeout_ms must be a whole number from 1"))
      #expect(error.message.contains("previous configuration stays in force"))
    }
    #expect(
      texts(try await host.client.request(.read(ReadRequest(image: Image(data: TestImages.png(1)))))) == [
        "a": "1", "b": "2",
      ])
    #expect(await host.finish() == 0)
  }

  @Test func aReloadLiftsAQuarantineWhenTheConfigurationChanged() async throws {
    try rewrite(
      #"{"plugins": [{"name": "q", "command": ["photometer-testplugin"], "roles": ["read"], "options": {"text": "1", "behaviour": "crash"}}]}"#
    )
    let quarantineAtOnce = RestartPolicy(
      loopWindow: .zero, loopBackoff: .zero, quarantineAfter: 2, quarantineWindow: .seconds(60))
    let plugins = makePluginSet(try source()(), policy: quarantineAtOnce, source: source())
    await plugins.startAll()
    _ = try await plugins.read(ReadRequest(image: Image(data: TestImages.png(1))))
    // Ready again after the restart, not still the crashed process: else the second read can
    // fail on the dead connection without a second crash, and there is no quarantine.
    #expect(
      await eventually {
        let status = await plugins.statuses().first
        return status?.state == .ready && status?.restarts == 1
      })
    _ = try await plugins.read(ReadRequest(image: Image(data: TestImages.png(1))))
    #expect(await eventually { await plugins.statuses().first?.state == .quarantined })
    try rewrite(
      #"{"plugins": [{"name": "q", "command": ["photometer-testplugin"], "roles": ["read"], "options": {"text": "1"}}]}"#
    )
    let statuses = try await plugins.reload()
    #expect(statuses.first?.state == .ready)
    #expect(try await plugins.read(ReadRequest(image: Image(data: TestImages.png(1)))).value == "1")
    await plugins.stopAll()
  }
}
