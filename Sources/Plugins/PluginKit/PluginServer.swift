import Dispatch
import PhotometerProtocol
import Synchronization

/// Serves one ``Recognizer`` over the process's standard input and output.
///
/// Standard output carries only frames: `run` moves the protocol to a copy of descriptor 1 and
/// points descriptor 1 at standard error, so a stray `print` cannot corrupt the stream.
public enum PluginServer {
  private static let frameOutput = Atomic<Int32>(-1)

  /// The descriptor frames go to once ``run(_:maxFrameSize:)`` has started, or -1 before.
  ///
  /// Only for test plugins that must corrupt the stream on purpose: anything written here that
  /// is not a whole frame makes the host kill the plugin.
  public static var frameOutputDescriptor: Int32 {
    frameOutput.load(ordering: .acquiring)
  }

  /// Serves until the host closes the input or sends `Shutdown`; returns the exit status.
  ///
  /// - Returns: 0 after a clean end, 1 when the input broke off inside a frame or carried an
  ///   oversized frame, 2 when the handshake failed.
  public static func run<R: Recognizer>(
    _ recognizer: R,
    maxFrameSize: Int = FrameDecoder.defaultMaxFrameSize
  ) -> Int32 {
    let protocolOutput = StandardStreams.reserveStandardOutputForFrames()
    LargeFrameMemory.keepFreedBlocks()
    frameOutput.store(protocolOutput, ordering: .releasing)
    let channel = FrameChannel(input: 0, output: protocolOutput, maxFrameSize: maxFrameSize)
    let session = Session(recognizer: recognizer, channel: channel)
    let done = DispatchSemaphore(value: 0)
    channel.start { event in
      if session.handle(event) {
        done.signal()
      }
    }
    done.wait()
    return session.exitStatus
  }
}

/// The plugin's side of one conversation with the host.
///
/// `@unchecked Sendable`: every method runs on the channel's single reader thread, one event at a
/// time, and ``exitStatus`` is read only after the last event has been handled.
private final class Session<R: Recognizer>: @unchecked Sendable {
  private var recognizer: R
  private let channel: FrameChannel
  private var host: Hello?
  private var referenceSets = ReferenceSets()
  private(set) var exitStatus: Int32 = 0

  init(recognizer: R, channel: FrameChannel) {
    self.recognizer = recognizer
    self.channel = channel
  }

  /// Handles one event; returns true when the conversation is over.
  func handle(_ event: FrameChannel.Event) -> Bool {
    switch event {
    case .envelope(let envelope):
      return handle(envelope)
    case .undecodable(let frame, _):
      reply(frame.requestID, .error(ErrorReply(frame.reason.code, frame.reason.description)))
      return false
    case .broken(let error, _):
      let code: ErrorCode = if case .tooLarge = error { .frameTooLarge } else { .invalidRequest }
      reply(0, .error(ErrorReply(code, error.description)))
      exitStatus = 1
      return true
    case .closed:
      return true
    }
  }

  private func handle(_ envelope: Envelope) -> Bool {
    let id = envelope.requestID
    guard host != nil else {
      return handshake(envelope)
    }
    switch HostMessage(envelope.message) {
    case .ping(let payload):
      reply(id, .pong(payload: payload))
    case .cancel:
      break  // Requests run one at a time, so the one a Cancel names has already been answered.
    case .shutdown:
      reply(id, .shutdownComplete)
      return true
    case .read(let request) where recognizer.roles.contains(.read) || recognizer.roles.contains(.dials):
      answer(id) { () throws(ErrorReply) in .engineReading(try recognizer.read(request)) }
    case .identify(let request) where recognizer.roles.contains(.identify):
      guard let request = referenceSets.resolve(request) else {
        reply(id, .pluginCandidates(PluginCandidates([], unknownReferenceSet: true)))
        break
      }
      answer(id) { () throws(ErrorReply) in .pluginCandidates(try recognizer.identify(request)) }
    case .hello:
      reply(id, .error(ErrorReply(.invalidRequest, "the handshake is already done")))
    case .read, .identify, nil:
      reply(id, .error(ErrorReply(.unknownMessage, "this plugin does not take \(envelope.message.kind)")))
    }
    return false
  }

  private func handshake(_ envelope: Envelope) -> Bool {
    guard case .hello(let hostHello) = envelope.message else {
      reply(
        envelope.requestID, .error(ErrorReply(.handshakeRequired, "send Hello first, not \(envelope.message.kind)")))
      return false
    }
    do throws(ErrorReply) {
      var own = try recognizer.handshake(hostHello)
      own.roles = recognizer.roles
      if let refusal = own.refusal(ofPeer: hostHello) {
        throw refusal
      }
      host = hostHello
      reply(envelope.requestID, .hello(own))
      return false
    } catch {
      reply(envelope.requestID, .error(error))
      exitStatus = 2
      return true
    }
  }

  private func answer(_ id: UInt64, _ work: () throws(ErrorReply) -> Message) {
    do throws(ErrorReply) {
      reply(id, try work())
    } catch {
      reply(id, .error(error))
    }
  }

  private func reply(_ id: UInt64, _ message: Message) {
    // A failed write means the host is gone; the reader sees the end of input next.
    try? channel.send(Envelope(requestID: id, message: message))
  }
}
