import Foundation
import PhotometerHost
import PhotometerProtocol
import PluginSupervisor
import TestSupport
import Testing

/// The household crosses a plugin's pipe once: a plugin of protocol 1.2 on is sent its name alone
/// after that, and the list again when it does not keep it; an older plugin always gets the list
/// (Tests/Fixtures/reference_set_plugin.py records what came).
@Suite struct ReferenceSetTests {
  /// A host with the recording plugin and a household of `meters` meters; the plugin's log path.
  func host(minor: Int, mode: String, meters: Int) async throws -> (HostHarness, String) {
    let log = try writeTemporaryFile("identify.log", [])
    let plugin = try PluginConfiguration.load(
      contentsOf: try writePluginsFile(
        """
        {"plugins": [{"name": "sets", "roles": ["identify"],
          "command": ["python3", "\(Products.repository)/Tests/Fixtures/reference_set_plugin.py",
                      "\(log)", "\(minor)", "\(mode)"]}]}
        """), programFolder: "/nonexistent")
    let host = HostHarness(plugins: plugin)
    try await host.handshake()
    for number in 0..<meters {
      try await addMeter(number, to: host)
    }
    return (host, log)
  }

  func addMeter(_ number: Int, to host: HostHarness) async throws {
    let photo = Image(data: TestImages.png(number), name: "meter\(number).png")
    _ = try await host.client.request(
      .addMeter(AddMeterRequest(meter: Meter(name: "meter\(number)", kind: .water), references: [photo])))
  }

  /// Identifies a photo among the stored household; the voted meter.
  func identify(_ host: HostHarness) async throws -> String {
    let reply = try await host.client.request(
      .identify(IdentifyRequest(image: Image(data: TestImages.png(99)), references: [])))
    guard case .identifyResult(let result) = reply else {
      throw ErrorReply(.internal, "expected an IdentifyResult, got \(reply.kind)")
    }
    return result.meter
  }

  /// The log's lines with each reference set's name replaced by a letter, in order of appearance.
  func calls(_ log: String) throws -> [String] {
    var names: [String: String] = ["-": "-"]
    return try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map { line in
      let parts = line.split(separator: " ").map(String.init)
      let letter = names[parts[1]] ?? String(UnicodeScalar(UInt8(65 + names.count - 1)))
      names[parts[1]] = letter
      return "\(parts[0]) \(letter)"
    }
  }

  @Test func aPluginThatKeepsTheHouseholdIsSentItsNameAlone() async throws {
    let (host, log) = try await host(minor: 2, mode: "keeps", meters: 3)
    #expect(try await identify(host) == "meter0")
    #expect(try await identify(host) == "meter0")
    // The first call names the set alone and learns the plugin does not keep it yet.
    #expect(try calls(log) == ["0 A", "3 A", "0 A"])
    try await addMeter(3, to: host)
    #expect(try await identify(host) == "meter0")
    #expect(try calls(log) == ["0 A", "3 A", "0 A", "0 B", "4 B"])
    #expect(await host.finish() == 0)
  }

  @Test func aPluginThatForgotTheHouseholdIsSentItAgain() async throws {
    let (host, log) = try await host(minor: 2, mode: "forgets", meters: 2)
    #expect(try await identify(host) == "meter0")
    #expect(try await identify(host) == "meter0")
    #expect(try calls(log) == ["0 A", "2 A", "0 A", "2 A"])
    #expect(await host.finish() == 0)
  }

  @Test func aPluginOfProtocol1Point1GetsTheListAndNoName() async throws {
    let (host, log) = try await host(minor: 1, mode: "keeps", meters: 2)
    #expect(try await identify(host) == "meter0")
    #expect(try await identify(host) == "meter0")
    #expect(try calls(log) == ["2 -", "2 -"])
    #expect(await host.finish() == 0)
  }

  @Test func aClientCannotNameTheSetItsListIsKeptUnder() async throws {
    let (host, log) = try await host(minor: 2, mode: "keeps", meters: 2)
    #expect(try await identify(host) == "meter0")
    // A client's list under the household's name would make the plugin answer from it later.
    let household = try calls(log).count
    let reply = try await host.client.request(
      .identify(
        IdentifyRequest(
          image: Image(data: TestImages.png(99)),
          references: [Reference(meter: "intruder", image: Image(data: TestImages.png(7)), sha256: "")],
          referenceSet: String(repeating: "0", count: 64))))
    guard case .identifyResult(let result) = reply else {
      throw ErrorReply(.internal, "expected an IdentifyResult, got \(reply.kind)")
    }
    #expect(result.meter == "intruder")
    #expect(try await identify(host) == "meter0")
    #expect(try calls(log).dropFirst(household) == ["1 -", "0 A"])
    #expect(await host.finish() == 0)
  }
}
