import ChildProcess
import Foundation
import PhotometerClient
import PhotometerProtocol
import Synchronization
import TestSupport
import Testing

/// `photometer-host` as a real process, started the way clients start it.
@Suite struct HostProcessTests {
  static let pluginsFile = """
    {"plugins": [
      {"name": "chatty", "command": ["photometer-testplugin"], "roles": ["read"],
       "options": {"text": "321", "stderr_lines": "3"}},
      {"name": "second", "command": ["photometer-testplugin"], "roles": ["read"], "options": {"text": "321"}}
    ]}
    """

  final class LogLines: Sendable {
    let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
  }

  /// How many log lines so far satisfy a predicate, judged once as each line comes: a wait on a
  /// flood of lines then neither rescans nor copies them while the host's log is being read.
  final class LogCount: Sendable {
    let matching: @Sendable (String) -> Bool
    let count = Mutex(0)
    init(_ matching: @escaping @Sendable (String) -> Bool) { self.matching = matching }
    func append(_ line: String) { if matching(line) { count.withLock { $0 += 1 } } }
    var value: Int { count.withLock { $0 } }
  }

  func launch(_ plugins: String = pluginsFile, log: LogLines = LogLines()) async throws -> HostClient {
    try await HostClient.launch(
      executable: Products.executable("photometer-host"),
      arguments: ["--db", temporaryDatabasePath(), "--plugins", try writePluginsFile(plugins), "--log-level", "info"],
      onLogLine: log.append
    )
  }

  @Test func servesOverStandardInputAndOutputWithLogsOnStandardError() async throws {
    let log = LogLines()
    let client = try await launch(log: log)
    #expect(client.host.name == "photometer-host")
    let result = try await client.send(.read(ReadRequest(image: Image(data: TestImages.png(1)))))
    #expect(result.value == "321")
    #expect(result.confidence > 0.89)
    // The plugin's own prints reached the host's log, tagged with its name, not the protocol stream.
    #expect(
      await eventually {
        log.all.contains { $0.contains("test plugin diagnostic line 2") && $0.contains("plugin=chatty") }
      })
    #expect(try await client.shutdown() == .exited(code: 0))
  }

  @Test func exitsCleanlyAtTheEndOfItsInputTakingItsPluginsAlong() async throws {
    let client = try await launch()
    let pids = try await client.send(.listPlugins).flatMap(\.pids)
    #expect(pids.count == 2 && pids.allSatisfy { $0 > 0 })
    #expect(await client.close() == .exited(code: 0))
    #expect(await eventually { pids.allSatisfy { !processExists($0) } })
  }

  @Test func leavesNoPluginBehindWhenKilled() async throws {
    let client = try await launch()
    let pids = try await client.send(.listPlugins).flatMap(\.pids)
    #expect(pids.allSatisfy { processExists($0) })
    client.process.send(signal: SIGKILL)
    #expect(await client.process.waitForExit() == .signaled(signal: SIGKILL))
    #expect(await eventually { pids.allSatisfy { !processExists($0) } })
  }

  @Test func restartsAPluginThatCrashed() async throws {
    let client = try await launch()
    let before = try await client.send(.listPlugins)
    kill(before[0].pids[0], SIGKILL)
    _ = await eventually { !processExists(before[0].pids[0]) }
    // The first read after the crash may find the plugin gone; the one after that is served.
    _ = try? await client.send(.read(ReadRequest(image: Image(data: TestImages.png(1)))))
    let result = try await client.send(.read(ReadRequest(image: Image(data: TestImages.png(1)))))
    #expect(result.engines.allSatisfy { if case .success = $0.outcome { true } else { false } })
    let after = try await client.send(.listPlugins)
    #expect(after[0].pids != before[0].pids)
    #expect(after[0].restarts == 1)
    await client.close()
  }

  @Test func refusesABadConfigurationWithAReason() async throws {
    let output = try await runCommand(
      Products.executable("photometer-host"),
      [
        "--db", temporaryDatabasePath(), "--plugins",
        try writePluginsFile(#"{"plugins": [{"name": "x", "command": ["y"], "roles": ["sing"]}]}"#),
      ])
    #expect(output.status == 1)
    #expect(output.standardError.contains("plugin 'x': roles: unknown role 'sing'"))
    #expect(output.standardOutput.isEmpty)
  }
}

/// Supervision seen from outside the host process.
@Suite struct HostSupervisionTests {
  @Test func aPluginFloodingStandardErrorDoesNotBlockIt() async throws {
    let flooded = HostProcessTests.LogCount { $0.contains("plugin=flood") && $0.contains("xxxxxxxx") }
    let plugins = try writePluginsFile(
      #"{"plugins": [{"name": "flood", "command": ["photometer-testplugin"], "roles": ["read"], "options": {"text": "5", "behaviour": "flood", "flood_mb": "8"}}]}"#
    )
    let client = try await HostClient.launch(
      executable: Products.executable("photometer-host"),
      arguments: ["--db", temporaryDatabasePath(), "--plugins", plugins, "--log-level", "info"],
      onLogLine: flooded.append)
    let result = try await client.send(.read(ReadRequest(image: Image(data: TestImages.png(1)))))
    #expect(result.value == "5")
    #expect(await eventually { flooded.value >= 8192 })
    #expect(try await client.shutdown() == .exited(code: 0))
  }

  @Test func hangUpReloadsTheConfiguration() async throws {
    let plugins = try writePluginsFile(
      #"{"plugins": [{"name": "a", "command": ["photometer-testplugin"], "roles": ["read"], "options": {"text": "1"}}]}"#
    )
    let client = try await HostClient.launch(
      executable: Products.executable("photometer-host"),
      arguments: ["--db", temporaryDatabasePath(), "--plugins", plugins])
    #expect(try await client.send(.listPlugins).map(\.name) == ["a"])
    try Data(
      #"{"plugins": [{"name": "b", "command": ["photometer-testplugin"], "roles": ["read"], "options": {"text": "2"}}]}"#
        .utf8
    ).write(to: URL(fileURLWithPath: plugins))
    client.process.send(signal: SIGHUP)
    #expect(await eventually { (try? await client.send(.listPlugins).map(\.name)) == ["b"] })
    #expect(try await client.send(.read(ReadRequest(image: Image(data: TestImages.png(1))))).value == "2")
    #expect(try await client.shutdown() == .exited(code: 0))
  }
}
