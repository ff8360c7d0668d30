import Foundation
import PhotometerHost
import PhotometerProtocol
import PluginSupervisor
import Testing

@Suite final class PluginConfigurationTests {
  let folder: URL = {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("photometer-config-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }()

  deinit {
    try? FileManager.default.removeItem(at: folder)
  }

  func load(_ json: String) throws(ConfigurationError) -> [PluginConfiguration] {
    let file = folder.appendingPathComponent("plugins.json")
    try? Data(json.utf8).write(to: file)
    return try PluginConfiguration.load(contentsOf: file.path, programFolder: "/nowhere")
  }

  func error(_ json: String) -> String {
    do {
      _ = try load(json)
      return "no error"
    } catch {
      return error.message
    }
  }

  @Test func readsEveryField() throws {
    let plugins = try load(
      """
      {"plugins": [{
        "name": "ocr", "command": ["bin/ocr", "--fast"], "env": {"A": "1"}, "roles": ["read", "identify"],
        "enabled": false, "mode": "shadow", "weight": 2.5, "timeout_ms": 1500, "options": {"lang": "eng"},
        "share": 0.1
      }]}
      """)
    #expect(plugins.count == 1)
    let plugin = plugins[0]
    #expect(plugin.name == "ocr")
    #expect(plugin.command == [folder.appendingPathComponent("bin/ocr").standardized.path, "--fast"])
    #expect(plugin.environment == ["A": "1"])
    #expect(plugin.roles == [.read, .identify])
    #expect(!plugin.enabled)
    #expect(plugin.mode == .shadow)
    #expect(plugin.weight == 2.5)
    #expect(plugin.timeout == .milliseconds(1500))
    #expect(plugin.options == ["lang": "eng"])
    #expect(plugin.share == 0.1)
    #expect(plugin.directory == folder.path)
  }

  @Test func aProgramPathResolvesAgainstTheFilesFolderWithItsDotDots() throws {
    let plugins = try load(
      """
      {"plugins": [
        {"name": "up", "command": ["../tools/x.py"], "roles": ["read"]},
        {"name": "here", "command": ["./bin/../bin/ocr"], "roles": ["read"]}
      ]}
      """)
    #expect(plugins[0].command == [folder.deletingLastPathComponent().appendingPathComponent("tools/x.py").path])
    #expect(plugins[1].command == [folder.appendingPathComponent("bin/ocr").path])
  }

  @Test func namesTheFieldOfAHugeNumberAndARepeatedKey() {
    #expect(
      error(#"{"plugins": [{"name": "a", "command": ["/bin/true"], "roles": ["read"], "timeout_ms": 1e30}]}"#)
        .contains("plugin 'a': timeout_ms must be a whole number from 1 to 86400000"))
    #expect(
      error(#"{"plugins": [{"name": "a", "command": ["/bin/true"], "roles": ["read"], "instances": 2.5}]}"#)
        .contains("instances must be 1 to 64"))
    #expect(
      error(#"{"plugins": [{"name": "a", "name": "b", "command": ["/bin/true"], "roles": ["read"]}]}"#)
        .contains("gives the field 'name' twice in one object"))
    // The same key in two objects, or a key's text as a value, is no repeat.
    #expect(
      error(
        #"{"plugins": [{"name": "name", "command": ["/bin/true"], "roles": ["read"], "options": {"name": "x\"y"}}]}"#
      ) == "no error")
  }

  @Test func hasDefaults() throws {
    let plugin = try load(#"{"plugins": [{"name": "a", "command": ["/bin/true"], "roles": ["read"]}]}"#)[0]
    #expect(plugin.enabled)
    #expect(plugin.mode == .vote)
    #expect(plugin.weight == 1)
    #expect(plugin.timeout == .seconds(30))
    #expect(plugin.share == 1)
  }

  @Test func findsABareProgramNameOnThePath() throws {
    let plugin = try load(#"{"plugins": [{"name": "a", "command": ["sh"], "roles": ["read"]}]}"#)[0]
    #expect(plugin.command[0].hasSuffix("/sh"))
    #expect(plugin.command[0].hasPrefix("/"))
  }

  @Test func namesThePluginAndTheFieldAtFault() {
    #expect(
      error(#"{"plugins": [{"name": "a", "command": ["x"], "roles": ["paint"]}]}"#).contains(
        "plugin 'a': roles: unknown role 'paint'"))
    #expect(
      error(#"{"plugins": [{"name": "a", "command": [], "roles": ["read"]}]}"#).contains(
        "plugin 'a': command must name a program"))
    #expect(
      error(#"{"plugins": [{"name": "a", "command": ["x"], "roles": ["read"], "mode": "loud"}]}"#).contains(
        "plugin 'a': mode"))
    #expect(
      error(#"{"plugins": [{"name": "a", "command": ["x"], "roles": ["read"], "weight": -1}]}"#).contains(
        "plugin 'a': weight"))
    #expect(
      error(#"{"plugins": [{"name": "a", "command": ["x"], "roles": ["read"], "timeout_ms": 0}]}"#).contains(
        "plugin 'a': timeout_ms"))
    #expect(
      error(#"{"plugins": [{"name": "a", "command": ["x"], "roles": ["read"], "share": 1.5}]}"#).contains(
        "plugin 'a': share must be a number from 0 to 1"))
    #expect(error(#"{"plugins": [{"name": "a b", "command": ["x"], "roles": ["read"]}]}"#).contains("name must be"))
    #expect(error(#"{"plugins": [{"name": "a", "command": ["x"]}]}"#).contains("missing field 'roles' at plugins.[0]"))
    #expect(
      error(#"{"plugins": [{"name": "a", "command": ["x"], "roles": ["read"], "weight": "heavy"}]}"#).contains(
        "plugins.[0].weight"))
  }

  @Test func refusesTwoPluginsWithOneName() {
    let json =
      #"{"plugins": [{"name": "a", "command": ["x"], "roles": ["read"]}, {"name": "a", "command": ["y"], "roles": ["read"]}]}"#
    #expect(error(json).contains("plugin 'a': name is used twice"))
  }

  @Test func reportsAFileThatIsNotJSON() {
    #expect(error("{plugins").contains("is not a valid plugin configuration"))
  }

  @Test func votingWeightsLeaveOutShadowAndDisabledPlugins() throws {
    let file = folder.appendingPathComponent("plugins.json")
    try Data(
      """
      {"plugins": [
        {"name": "digits", "command": ["x"], "roles": ["read"], "weight": 3},
        {"name": "tesseract", "command": ["x"], "roles": ["read"]},
        {"name": "candidate", "command": ["x"], "roles": ["read"], "weight": 2, "mode": "shadow"},
        {"name": "retired", "command": ["x"], "roles": ["read"], "weight": 5, "enabled": false}
      ]}
      """.utf8
    ).write(to: file)
    #expect(try PluginConfiguration.votingWeights(contentsOf: file.path) == ["digits": 3, "tesseract": 1])
  }

  @Test func reportsAMissingFile() {
    #expect(throws: ConfigurationError.self) {
      try PluginConfiguration.load(contentsOf: "/nonexistent/plugins.json", programFolder: "/")
    }
  }
}
