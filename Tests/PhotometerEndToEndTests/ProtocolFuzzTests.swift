import ChildProcess
import Foundation
import PhotometerProtocol
import TestSupport
import Testing

/// Random and mutated frames fed to a running host: it answers or closes, never dies by a signal,
/// and leaves no plugin behind.
@Suite struct ProtocolFuzzTests {
  static let valid: [[UInt8]] = [
    Envelope(requestID: 7, message: .ping(payload: [1, 2, 3])).serialized(),
    Envelope(requestID: 8, message: .read(ReadRequest(image: Image(data: TestImages.png(1)), options: ["text": "1"])))
      .serialized(),
    Envelope(requestID: 9, message: .identify(IdentifyRequest(image: Image(data: TestImages.png(2)), references: [])))
      .serialized(),
    Envelope(requestID: 10, message: .listPlugins).serialized(),
    Envelope(requestID: 11, message: .listReadings(ListReadingsRequest(meter: "x"))).serialized(),
    Envelope(requestID: 12, message: .cancel(requestID: 8)).serialized(),
  ]

  /// A frame: a mutated valid envelope, or random bytes, with a correct length prefix.
  static func frame(_ random: inout SplitMix64) -> [UInt8] {
    var payload: [UInt8]
    if Bool.random(using: &random) {
      payload = valid.randomElement(using: &random)!
      for _ in 0..<Int.random(in: 1...4, using: &random) where !payload.isEmpty {
        let index = Int.random(in: 0..<payload.count, using: &random)
        switch Int.random(in: 0..<3, using: &random) {
        case 0: payload[index] ^= UInt8(1 << Int.random(in: 0..<8, using: &random))
        case 1: payload.remove(at: index)
        default: payload.insert(UInt8.random(in: 0...255, using: &random), at: index)
        }
      }
    } else {
      payload = (0..<Int.random(in: 0..<64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
    }
    return Varint.encode(UInt64(payload.count)) + payload
  }

  @Test(arguments: [1, 2, 3, 4])
  func theHostSurvivesRandomFrames(seed: UInt64) async throws {
    var random = SplitMix64(seed: seed)
    let plugins = try writePluginsFile(
      #"{"plugins": [{"name": "p", "command": ["photometer-testplugin"], "roles": ["read", "identify"]}]}"#)
    let host = try await ChildProcess.spawn(
      executable: Products.executable("photometer-host"),
      arguments: ["--db", temporaryDatabasePath(), "--plugins", plugins, "--log-level", "critical"]
    ) { _, _ in }
    let peer = RawPeer(input: host.standardOutput, output: host.standardInput)
    peer.send(Envelope(requestID: 1, message: .hello(Hello(name: "fuzz", softwareVersion: "1"))))
    _ = await peer.replies(to: 1, count: 1)
    for _ in 0..<2_000 {
      peer.write(Self.frame(&random))
    }
    // Then one frame that must still be answered, unless a frame closed the connection.
    peer.send(Envelope(requestID: 99, message: .ping(payload: [])))
    let answered = await peer.replies(to: 99, count: 1)
    if answered.isEmpty {
      #expect(peer.isClosed, "the host neither answered nor closed")
    }
    #expect(peer.undecodableCount == 0, "the host wrote something that is not a message")
    let pids = (try? await pluginPids(peer)) ?? []
    peer.closeOutput()
    let status = await host.waitForExit(timeout: .seconds(20))
    #expect(status == .exited(code: 0) || status == .exited(code: 1), "seed \(seed): \(String(describing: status))")
    #expect(await eventually { pids.allSatisfy { !processExists($0) } })
  }

  private func pluginPids(_ peer: RawPeer) async throws -> [Int32] {
    peer.send(Envelope(requestID: 100, message: .listPlugins))
    guard case .pluginList(let list)? = await peer.replies(to: 100, count: 1).first else {
      return []
    }
    return list.flatMap(\.pids)
  }
}
