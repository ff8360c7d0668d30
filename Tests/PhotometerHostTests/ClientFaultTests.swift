import Foundation
import PhotometerHost
import PhotometerProtocol
import Synchronization
import TestSupport
import Testing

/// Clients that misbehave: the host stays bounded and loses nothing.
@Suite struct ClientFaultTests {
  /// How many requests the client tries to send.
  static let requests = 6_000

  @Test func aClientThatStopsReadingIsHeldBackAndLosesNoReply() async throws {
    let host = InProcessHost(plugins: [])
    let sent = Atomic<Int>(0)
    let output = host.requests
    // Requests of about 1 KiB, answered with an error (no read plugin) that nobody reads for now.
    Thread.detachNewThread {
      let hello = Envelope(requestID: 1, message: .hello(Hello(name: "slow-reader", softwareVersion: "1")))
      guard writeAll(hello.framed(), to: output) else { return }
      for id in 2...UInt64(Self.requests + 1) {
        let image = Image(data: TestImages.png(Int(id)) + [UInt8](repeating: 0, count: 1024))
        guard writeAll(Envelope(requestID: id, message: .read(ReadRequest(image: image))).framed(), to: output) else {
          return
        }
        sent.add(1, ordering: .relaxed)
      }
    }
    // Wait until the client can send no more: the host stopped reading.
    var last = -1
    while sent.load(ordering: .relaxed) != last {
      last = sent.load(ordering: .relaxed)
      try await Task.sleep(for: .milliseconds(500))
    }
    #expect(last < Self.requests / 2, "the host took \(last) requests from a client that read none of its replies")

    // Once the client reads again, every request gets its one reply.
    let peer = RawPeer(input: host.replies, output: dup(host.requests))
    let replies = await peer.envelopes(count: Self.requests + 1, timeout: .seconds(60))
    #expect(replies.count == Self.requests + 1)
    #expect(Set(replies.map(\.requestID)).count == Self.requests + 1)
    close(host.requests)
    peer.closeOutput()
    #expect(await host.status.value == 0)
  }
}

/// Writes all of `bytes`, blocking while the pipe is full; false when the pipe is closed.
private func writeAll(_ bytes: [UInt8], to fd: Int32) -> Bool {
  var offset = 0
  while offset < bytes.count {
    let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
    if count < 0 && errno == EINTR { continue }
    guard count > 0 else { return false }
    offset += count
  }
  return true
}
