import PhotometerHost
import PhotometerProtocol
import TestSupport
import Testing

/// What the host does with bytes that are not the protocol.
@Suite struct MalformedInputTests {
  @Test func answersAnUndecodableFrameAndGoesOn() async {
    let host = RawHostHarness(plugins: [])
    await host.handshake()
    host.peer.write(Varint.encode(3) + [0xFF, 0xFF, 0xFF])
    host.peer.send(Envelope(requestID: 2, message: .ping(payload: [])))
    let replies = await host.peer.envelopes(count: 3)
    #expect(replies.count == 3)
    #expect(
      replies[1]
        == Envelope(requestID: 0, message: .error(ErrorReply(.invalidRequest, WireError.undecodable.description))))
    #expect(replies[2] == Envelope(requestID: 2, message: .pong(payload: [])))
    #expect(await host.finish() == 0)
  }

  @Test func answersAnUnknownMessageKindNamingTheRequest() async {
    let host = RawHostHarness(plugins: [])
    await host.handshake()
    let unknownKind: [UInt8] = [0x08, 0x2A, 0xA2, 0x06, 0x00]  // request 42, field 100
    host.peer.write(Varint.encode(UInt64(unknownKind.count)) + unknownKind)
    let replies = await host.peer.replies(to: 42, count: 1)
    guard case .error(let error)? = replies.first else {
      Issue.record("no error reply for request 42")
      return
    }
    #expect(error.code == .unknownMessage)
    #expect(error.message.contains("field 100"))
    #expect(await host.finish() == 0)
  }

  @Test func answersAnUnknownFieldNamingIt() async {
    let host = RawHostHarness(plugins: [])
    await host.handshake()
    let unknownField: [UInt8] = [0x08, 0x07, 0x22, 0x02, 0x78, 0x01]  // request 7, Ping with field 15
    host.peer.write(Varint.encode(UInt64(unknownField.count)) + unknownField)
    let replies = await host.peer.replies(to: 7, count: 1)
    guard case .error(let error)? = replies.first else {
      Issue.record("no error reply for request 7")
      return
    }
    #expect(error.code == .unknownField)
    #expect(error.message.contains("photometer.v1.Ping has unknown field 15"))
    #expect(await host.finish() == 0)
  }

  @Test func answersAnOversizedFrameAndCloses() async {
    let host = RawHostHarness(plugins: [], maxFrameSize: 1024)
    await host.handshake()
    host.peer.write(Varint.encode(1025))
    let replies = await host.peer.replies(to: 0, count: 1)
    #expect(replies == [.error(ErrorReply(.frameTooLarge, FrameError.tooLarge(length: 1025, limit: 1024).description))])
    #expect(await host.host.status.value == 1)
    #expect(await eventually { host.peer.isClosed })
  }

  @Test func answersAnAbsurdLengthWithoutAllocatingIt() async {
    let host = RawHostHarness(plugins: [])
    await host.handshake()
    host.peer.write(Varint.encode(UInt64.max))
    let replies = await host.peer.replies(to: 0, count: 1)
    guard case .error(let error)? = replies.first else {
      Issue.record("no error reply")
      return
    }
    #expect(error.code == .frameTooLarge)
    #expect(await host.host.status.value == 1)
  }

  @Test func endsCleanlyWhenTheInputStopsInsideAFrame() async {
    let host = RawHostHarness(plugins: [])
    await host.handshake()
    host.peer.write([10, 1, 2])
    host.peer.closeOutput()
    let replies = await host.peer.replies(to: 0, count: 1)
    guard case .error(let error)? = replies.first else {
      Issue.record("no error reply for the truncated frame")
      return
    }
    #expect(error.code == .invalidRequest)
    #expect(await host.host.status.value == 1)
  }

  @Test func answersAnEmptyFrame() async {
    let host = RawHostHarness(plugins: [])
    await host.handshake()
    host.peer.write([0])
    let replies = await host.peer.replies(to: 0, count: 1)
    #expect(replies == [.error(ErrorReply(.unknownMessage, "the envelope carries no message"))])
    #expect(await host.finish() == 0)
  }
}
