import Foundation
import PhotometerClient
import PhotometerHost
import PhotometerProtocol
import TestSupport
import Testing

/// The Python client module, example plugin and example client: any language that has protobuf
/// speaks the protocol.
@Suite struct PythonTests {
  static var examples: String { "\(Products.repository)/Examples/python-plugin" }

  @Test func thePythonPluginIdentifiesThroughTheHost() async throws {
    let plugins = try writePluginsFile(
      """
      {"plugins": [{"name": "python", "command": ["python3", "\(Self.examples)/exact_match_plugin.py"],
                    "roles": ["identify"]}]}
      """)
    let client = try await HostClient.launch(
      executable: Products.executable("photometer-host"),
      arguments: ["--db", temporaryDatabasePath(), "--plugins", plugins])
    let gas = Image(data: TestImages.png(100))
    let water = Image(data: TestImages.png(200))
    let references = [
      Reference(meter: "gas", image: gas, sha256: ""), Reference(meter: "water", image: water, sha256: ""),
    ]
    let known = try await client.send(.identify(IdentifyRequest(image: water, references: references)))
    #expect(known.meter == "water")
    #expect(known.plugins.first?.version == "1.0.0")
    let unknown = try await client.send(
      .identify(
        IdentifyRequest(image: Image(data: TestImages.png(1)), references: references)))
    #expect(unknown.meter == "")
    let statuses = try await client.send(.listPlugins)
    #expect(statuses.first?.state == .ready)
    #expect(statuses.first?.requests == 2)
    #expect(try await client.shutdown() == .exited(code: 0))
  }

  @Test func thePythonClientShakesHandsAndPings() async throws {
    let plugins = try writePluginsFile(#"{"plugins": []}"#)
    let output = try await runCommand(
      "/usr/bin/env",
      [
        "python3", "\(Self.examples)/client.py", Products.executable("photometer-host"), "--plugins", plugins, "--db",
        temporaryDatabasePath(),
      ])
    #expect(output.status == 0, "\(output.standardError)")
    #expect(output.lines.first == "hello: photometer-host \(HostServer.version), protocol \(ProtocolVersion.current)")
    #expect(output.lines.last?.hasPrefix("pongs: 10, in order: True") == true)
  }

  /// clients/python's own tests (unittest) against the built host: handshake, requests from many
  /// threads, the store, typed errors, a closed host.
  @Test func thePythonClientModulePassesItsTests() async throws {
    var environment = ProcessInfo.processInfo.environment
    environment["PHOTOMETER_HOST"] = Products.executable("photometer-host")
    let output = try await runCommand(
      "/usr/bin/env", ["python3", "-m", "unittest", "discover", "-v", "\(Products.repository)/clients/python/tests"],
      environment: environment)
    #expect(output.status == 0, "\(output.standardError)")
    #expect(output.standardError.contains("Ran 4 tests"), "\(output.standardError)")
  }

  /// The Home Assistant bridge's tests (Examples/home-assistant, unittest): a real mosquitto on
  /// loopback that they start and stop, the discovery and state messages a subscriber receives,
  /// an unsure reading neither stored nor published, an unknown meter named.
  @Test func theHomeAssistantBridgePublishesOverARealBroker() async throws {
    var environment = ProcessInfo.processInfo.environment
    environment["PHOTOMETER_HOST"] = Products.executable("photometer-host")
    environment["PHOTOMETER_PLUGINS"] = try writePluginsFile(
      #"{"plugins": [{"name": "reader", "command": ["photometer-reader"], "roles": ["read"]}]}"#)
    let output = try await runCommand(
      "/usr/bin/env",
      ["python3", "-m", "unittest", "discover", "-v", "\(Products.repository)/Examples/home-assistant"],
      environment: environment)
    #expect(output.status == 0, "\(output.standardError)")
    #expect(output.standardError.contains("Ran 2 tests"), "\(output.standardError)")
  }
}
