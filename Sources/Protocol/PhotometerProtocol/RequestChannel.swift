import Dispatch
import Synchronization

/// The asking side of a conversation: sends requests and matches replies to them by id.
///
/// Used by a client towards the host and by the host towards each plugin. Replies may come in any
/// order. When the connection ends, every request still waiting fails with
/// ``RequestChannel/Closed``.
public final class RequestChannel: Sendable {
  /// The connection ended before the reply came.
  public struct Closed: Error, Hashable, Sendable, CustomStringConvertible {
    /// Why it ended, e.g. "the peer closed the connection".
    public var reason: String

    public var description: String { reason }
  }

  /// A request that ran out of time; the peer was sent a `Cancel` for it.
  public struct TimedOut: Error, Hashable, Sendable, CustomStringConvertible {
    public var timeout: Duration

    public var description: String { "no answer within \(timeout)" }
  }

  /// `@unchecked Sendable`: a `DispatchWorkItem` may be cancelled from any thread, and the
  /// continuation is Sendable.
  private struct Pending: @unchecked Sendable {
    var continuation: CheckedContinuation<Message, any Error>
    var timer: DispatchWorkItem?
  }

  private struct State {
    var nextID: UInt64 = 1
    var pending: [UInt64: Pending] = [:]
    var closed: Closed?
  }

  public let frames: FrameChannel
  private let state = Mutex(State())
  private let onUnsolicited: @Sendable (Envelope) -> Void
  private let onClose: @Sendable (Closed) -> Void

  /// - Parameters:
  ///   - frames: the connection; this object starts its reader.
  ///   - onUnsolicited: called with frames that answer no waiting request, on the reader thread.
  ///   - onClose: called once, on the reader thread, when the connection ends.
  public init(
    frames: FrameChannel,
    onUnsolicited: @escaping @Sendable (Envelope) -> Void = { _ in },
    onClose: @escaping @Sendable (Closed) -> Void = { _ in }
  ) {
    self.frames = frames
    self.onUnsolicited = onUnsolicited
    self.onClose = onClose
  }

  /// Starts reading replies.
  public func start() {
    frames.start { [self] event in
      switch event {
      case .envelope(let envelope):
        deliver(envelope)
      case .undecodable(let frame):
        fail(frame.requestID, with: ErrorReply(frame.reason.code, "undecodable reply: \(frame.reason)"))
      case .broken(let error):
        close(Closed(reason: "the connection broke: \(error)"))
      case .closed:
        close(Closed(reason: "the peer closed the connection"))
      }
    }
  }

  /// Sends `message` and waits for its reply, at most `timeout` when one is given.
  ///
  /// - Returns: the reply's message, which is never ``Message/error(_:)``.
  /// - Throws: the ``ErrorReply`` the peer answered with, ``Closed`` if the connection ended,
  ///   ``ChannelError`` if the request could not be written, ``TimedOut`` after `timeout`, or
  ///   `CancellationError` when the calling task is cancelled. The peer is sent a `Cancel` for a
  ///   request that timed out or was cancelled.
  public func request(_ message: Message, timeout: Duration? = nil) async throws -> Message {
    let id = state.withLock { state in
      defer { state.nextID += 1 }
      return state.nextID
    }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        // A timer costs far less than a racing task: no task is created per request.
        let timer = timeout.map { timeout in
          DispatchWorkItem { [weak self] in self?.abandon(id, with: TimedOut(timeout: timeout)) }
        }
        let closed: Closed? = state.withLock { state in
          if state.closed == nil {
            state.pending[id] = Pending(continuation: continuation, timer: timer)
          }
          return state.closed
        }
        if let closed {
          continuation.resume(throwing: closed)
          return
        }
        if Task.isCancelled {
          abandon(id, with: CancellationError())
          return
        }
        if let timer, let timeout {
          DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(timeout.nanoseconds), execute: timer)
        }
        do {
          try frames.send(Envelope(requestID: id, message: message))
        } catch {
          fail(id, with: error)
        }
      }
    } onCancel: {
      abandon(id, with: CancellationError())
    }
  }

  /// Sends a message that has no reply, such as ``Message/cancel(requestID:)``.
  public func notify(_ message: Message) throws(ChannelError) {
    try frames.send(Envelope(requestID: 0, message: message))
  }

  /// Closes the output: the peer sees the end of its input. Waiting requests keep waiting.
  public func closeOutput() {
    frames.closeOutput()
  }

  /// The number of requests waiting for a reply.
  public var pendingCount: Int {
    state.withLock { $0.pending.count }
  }

  /// Gives up on a request: the peer is told to cancel it and the caller gets `error`.
  private func abandon(_ id: UInt64, with error: any Error) {
    guard let pending = state.withLock({ $0.pending.removeValue(forKey: id) }) else {
      return
    }
    pending.timer?.cancel()
    try? notify(.cancel(requestID: id))
    pending.continuation.resume(throwing: error)
  }

  private func deliver(_ envelope: Envelope) {
    guard let pending = state.withLock({ $0.pending.removeValue(forKey: envelope.requestID) }) else {
      onUnsolicited(envelope)
      return
    }
    pending.timer?.cancel()
    if case .error(let reply) = envelope.message {
      pending.continuation.resume(throwing: reply)
    } else {
      pending.continuation.resume(returning: envelope.message)
    }
  }

  private func fail(_ id: UInt64, with error: any Error) {
    guard let pending = state.withLock({ $0.pending.removeValue(forKey: id) }) else {
      return
    }
    pending.timer?.cancel()
    pending.continuation.resume(throwing: error)
  }

  private func close(_ reason: Closed) {
    let waiting = state.withLock { state in
      state.closed = reason
      defer { state.pending = [:] }
      return state.pending.values
    }
    for pending in waiting {
      pending.timer?.cancel()
      pending.continuation.resume(throwing: reason)
    }
    onClose(reason)
  }
}

extension Duration {
  /// The duration in whole nanoseconds, saturating at `Int.max`.
  var nanoseconds: Int {
    let (seconds, attoseconds) = components
    let (product, overflow) = Int(seconds).multipliedReportingOverflow(by: 1_000_000_000)
    return overflow ? .max : product.addingReportingOverflow(Int(attoseconds / 1_000_000_000)).partialValue
  }
}
