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

    public init(timeout: Duration) {
      self.timeout = timeout
    }

    public var description: String { "no answer within \(timeout)" }
  }

  private struct Pending {
    var continuation: CheckedContinuation<Message, any Error>
    var timeout: Duration?
    var deadline: ContinuousClock.Instant?
  }

  private struct State {
    var nextID: UInt64 = 1
    var pending: [UInt64: Pending] = [:]
    var closed: Closed?
    /// The task that fails requests past their deadline, and when it next wakes.
    var sweeper: Task<Void, Never>?
    var sweeperWakes: ContinuousClock.Instant?
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

  deinit {
    state.withLock { $0.sweeper?.cancel() }
  }

  /// Starts reading replies.
  public func start() {
    frames.start { [self] event in
      switch event {
      case .envelope(let envelope):
        deliver(envelope)
      case .undecodable(let frame, let bytes):
        // A peer that writes what is not a message cannot be trusted with the rest of the stream.
        close(
          Closed(reason: "the peer wrote a frame that is not a message (\(frame.reason)); it began \(bytes.hexDump)"))
      case .broken(let error, let bytes):
        close(Closed(reason: "the connection broke: \(error); the bytes read began \(bytes.hexDump)"))
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
        let deadline = timeout.map { ContinuousClock.now + $0 }
        let closed: Closed? = state.withLock { state in
          guard state.closed == nil else {
            return state.closed
          }
          state.pending[id] = Pending(continuation: continuation, timeout: timeout, deadline: deadline)
          if let deadline {
            scheduleSweep(by: deadline, in: &state)
          }
          return nil
        }
        if let closed {
          continuation.resume(throwing: closed)
          return
        }
        if Task.isCancelled {
          abandon(id, with: CancellationError())
          return
        }
        let framed = Envelope(requestID: id, message: message).framed()
        guard framed.count <= frames.maxFrameSize else {
          // The peer would refuse the frame and close the connection: refuse it here, by name.
          let (size, limit) = (framed.count >> 20, frames.maxFrameSize >> 20)
          finish(
            id,
            with: .failure(
              ErrorReply(
                .frameTooLarge,
                "the \(message.kind) is \(size) MiB, over the \(limit) MiB a message may hold; "
                  + "send a smaller photo, or import the file in parts")))
          return
        }
        do {
          try frames.sendFrame(framed)
        } catch {
          finish(id, with: .failure(error))
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
    if finish(id, with: .failure(error)) {
      try? notify(.cancel(requestID: id))
    }
  }

  private func deliver(_ envelope: Envelope) {
    let result: Result<Message, any Error> =
      if case .error(let reply) = envelope.message { .failure(reply) } else { .success(envelope.message) }
    if !finish(envelope.requestID, with: result) {
      onUnsolicited(envelope)
    }
  }

  /// Resumes the request `id` with `result`; returns false when it was not waiting.
  @discardableResult
  private func finish(_ id: UInt64, with result: Result<Message, any Error>) -> Bool {
    guard let pending = state.withLock({ $0.pending.removeValue(forKey: id) }) else {
      return false
    }
    pending.continuation.resume(with: result)
    return true
  }

  private func close(_ reason: Closed) {
    let waiting: [Pending]? = state.withLock { state in
      guard state.closed == nil else {
        return nil
      }
      state.closed = reason
      state.sweeper?.cancel()
      defer { state.pending = [:] }
      return Array(state.pending.values)
    }
    guard let waiting else {
      return
    }
    for pending in waiting {
      pending.continuation.resume(throwing: reason)
    }
    onClose(reason)
  }
}

// MARK: Deadlines

extension RequestChannel {
  /// Makes sure a sweep runs by `deadline`.
  ///
  /// One task sleeps until the earliest deadline, rather than a timer per request: requests with
  /// one timeout have ever later deadlines, so a new request usually finds the sweep already due
  /// sooner and costs nothing.
  private func scheduleSweep(by deadline: ContinuousClock.Instant, in state: inout State) {
    if let wakes = state.sweeperWakes, wakes <= deadline {
      return
    }
    state.sweeper?.cancel()
    state.sweeperWakes = deadline
    state.sweeper = Task { [weak self] in
      try? await Task.sleep(until: deadline, clock: .continuous)
      guard !Task.isCancelled else { return }
      self?.sweep()
    }
  }

  /// Fails every request past its deadline, then schedules the next sweep.
  private func sweep() {
    let now = ContinuousClock.now
    let expired: [(UInt64, Duration)] = state.withLock { state in
      state.sweeper = nil
      state.sweeperWakes = nil
      let expired = state.pending.compactMap { id, pending in
        pending.deadline.map { $0 <= now ? (id, pending.timeout ?? .zero) : nil } ?? nil
      }
      if let next = state.pending.values.compactMap(\.deadline).filter({ $0 > now }).min() {
        scheduleSweep(by: next, in: &state)
      }
      return expired
    }
    for (id, timeout) in expired {
      abandon(id, with: TimedOut(timeout: timeout))
    }
  }
}
