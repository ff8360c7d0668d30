import PhotometerProtocol
import TestSupport
import Testing

/// A request channel against a scripted peer over pipes.
@Suite struct RequestChannelTests {
  let toPeer = TestSupport.Pipe()
  let fromPeer = TestSupport.Pipe()

  func makeChannel() -> (RequestChannel, RawPeer) {
    let channel = RequestChannel(frames: FrameChannel(input: fromPeer.read, output: toPeer.write))
    channel.start()
    return (channel, RawPeer(input: toPeer.read, output: fromPeer.write))
  }

  @Test func matchesRepliesThatComeOutOfOrder() async throws {
    let (channel, peer) = makeChannel()
    async let first = channel.request(.ping(payload: [1]))
    async let second = channel.request(.ping(payload: [2]))
    let requests = await peer.envelopes(count: 2)
    for request in requests.reversed() {
      guard case .ping(let payload) = request.message else { continue }
      peer.send(Envelope(requestID: request.requestID, message: .pong(payload: payload)))
    }
    #expect(try await first == .pong(payload: [1]))
    #expect(try await second == .pong(payload: [2]))
  }

  @Test func refusesARequestOverTheFrameLimitWithoutSendingIt() async throws {
    let channel = RequestChannel(frames: FrameChannel(input: fromPeer.read, output: toPeer.write, maxFrameSize: 1000))
    channel.start()
    let peer = RawPeer(input: toPeer.read, output: fromPeer.write)
    do {
      _ = try await channel.request(.ping(payload: [UInt8](repeating: 7, count: 2000)))
      Issue.record("a request over the limit was sent")
    } catch let error as ErrorReply {
      #expect(error.code == .frameTooLarge)
      #expect(error.message.contains("a message may hold"))
    }
    // The connection is still good: the next request goes out and is answered.
    let reply = Task { try await channel.request(.ping(payload: [1])) }
    let request = try #require(await peer.envelopes(count: 1).first)
    #expect(request.message == .ping(payload: [1]))
    peer.send(Envelope(requestID: request.requestID, message: .pong(payload: [1])))
    #expect(try await reply.value == .pong(payload: [1]))
  }

  @Test func throwsAnErrorReply() async throws {
    let (channel, peer) = makeChannel()
    let reply = Task { try await channel.request(.listPlugins) }
    let request = try #require(await peer.envelopes(count: 1).first)
    peer.send(Envelope(requestID: request.requestID, message: .error(ErrorReply(.busy, "later"))))
    await #expect(throws: ErrorReply(.busy, "later")) { try await reply.value }
  }

  @Test func failsWaitingRequestsWhenThePeerCloses() async throws {
    let (channel, peer) = makeChannel()
    let reply = Task { try await channel.request(.listPlugins) }
    _ = await peer.envelopes(count: 1)
    peer.closeOutput()
    await #expect(throws: RequestChannel.Closed.self) { try await reply.value }
    await #expect(throws: RequestChannel.Closed.self) { try await channel.request(.listPlugins) }
  }

  @Test func timesOutAndTellsThePeerToCancel() async throws {
    let (channel, peer) = makeChannel()
    await #expect(throws: RequestChannel.TimedOut.self) {
      try await channel.request(.listPlugins, timeout: .milliseconds(50))
    }
    let seen = await peer.envelopes(count: 2)
    #expect(seen.last?.message == .cancel(requestID: seen[0].requestID))
  }

  @Test func aShorterTimeoutAfterALongerOneStillFiresFirst() async throws {
    let (channel, peer) = makeChannel()
    let slow = Task { try await channel.request(.ping(payload: [1]), timeout: .seconds(30)) }
    _ = await peer.envelopes(count: 1)
    await #expect(throws: RequestChannel.TimedOut(timeout: .milliseconds(50))) {
      try await channel.request(.ping(payload: [2]), timeout: .milliseconds(50))
    }
    // The shorter one fired while the longer one still waits.
    #expect(channel.pendingCount == 1)
    // The longer request is unaffected and still gets its answer.
    let first = try #require(await peer.envelopes(count: 1).first)
    peer.send(Envelope(requestID: first.requestID, message: .pong(payload: [1])))
    #expect(try await slow.value == .pong(payload: [1]))
    #expect(channel.pendingCount == 0)
  }

  @Test func cancellingTheTaskTellsThePeerToCancel() async throws {
    let (channel, peer) = makeChannel()
    let task = Task { try await channel.request(.listPlugins) }
    _ = await peer.envelopes(count: 1)
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    let seen = await peer.envelopes(count: 2)
    #expect(seen.last?.message == .cancel(requestID: seen[0].requestID))
    #expect(channel.pendingCount == 0)
  }
}
