import Foundation
import PhotometerHost
import PhotometerProtocol
import PluginSupervisor
import TestSupport
import Testing

/// Plugins that break the protocol (Tests/Fixtures/rogue_plugin.py): the host keeps its answers
/// straight and the good plugins' votes stand.
@Suite struct RoguePluginTests {
  let image = Image(data: TestImages.png(1))

  func host(_ mode: String, timeout: Duration = .seconds(10)) throws -> HostHarness {
    // A bare `python3` is found on the PATH as plugins.json does it: the one Tools/setup gave
    // Python's protobuf package.
    let rogue = try PluginConfiguration.load(
      contentsOf: try writePluginsFile(
        """
        {"plugins": [{"name": "rogue", "roles": ["read"], "timeout_ms": \(Int(timeout.milliseconds)),
          "command": ["python3", "\(Products.repository)/Tests/Fixtures/rogue_plugin.py", "\(mode)"]}]}
        """), programFolder: "/nonexistent")
    return HostHarness(plugins: [testPlugin("good", roles: [.read], options: ["text": "04711"])] + rogue)
  }

  func read(_ host: HostHarness) async throws -> ReadResult {
    let reply = try await host.client.request(.read(ReadRequest(image: image)))
    guard case .readResult(let result) = reply else {
      throw ErrorReply(.internal, "expected a ReadResult, got \(reply.kind)")
    }
    return result
  }

  func rogue(_ result: ReadResult) -> EngineAnswer? {
    result.engines.first { $0.plugin == "rogue" }
  }

  @Test func anAnswerSentTwiceCountsOnceAndTheNextRequestGetsItsOwn() async throws {
    let host = try host("twice")
    try await host.handshake()
    let first = try await read(host)
    let second = try await read(host)
    #expect(first.value == "04711")
    #expect(rogue(first)?.value?.text == "00001")
    // The duplicate of the first answer is dropped, not taken for the second request's.
    #expect(rogue(second)?.value?.text == "00002")
    #expect(await host.finish() == 0)
  }

  @Test func anAnswerWithAnotherRequestIDIsIgnoredAndTheRequestTimesOut() async throws {
    let host = try host("wrong-id", timeout: .milliseconds(700))
    try await host.handshake()
    let result = try await read(host)
    #expect(result.value == "04711")
    if case .failure(let error) = rogue(result)?.outcome {
      #expect(error.code == .timeout)
    } else {
      Issue.record("the rogue plugin's stray answer was taken: \(String(describing: rogue(result)))")
    }
    #expect(await host.finish() == 0)
  }

  @Test func anAnswerOfTheWrongKindIsThePluginsFailure() async throws {
    let host = try host("wrong-kind")
    try await host.handshake()
    let result = try await read(host)
    #expect(result.value == "04711")
    if case .failure(let error) = rogue(result)?.outcome {
      #expect(error.code == .pluginFailed)
      #expect(error.message.contains("answered a ReadRequest with PluginCandidates"))
    } else {
      Issue.record("a PluginCandidates answer to a read was taken as a reading")
    }
    #expect(await host.finish() == 0)
  }
}
