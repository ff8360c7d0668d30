import Dispatch
import Foundation
import PhotometerProtocol
import Synchronization

/// Writes the host's replies to its client on a thread of its own, in the order they are given,
/// so that a client that reads slowly, or not at all, blocks that thread and never a task.
///
/// Replies are bounded by slots: the reader takes one (``takeSlot()``) for each message before
/// handling it, and the slot comes back once that message's reply is written. When none is free
/// the reader waits, so a client that stops reading its replies stops being read, instead of
/// making the host queue without bound.
final class ReplyWriter: Sendable {
  private let channel: FrameChannel
  private let slots: DispatchSemaphore
  private let ready = DispatchSemaphore(value: 0)
  private let state = Mutex(State())

  private struct State {
    var queue: [[UInt8]] = []
    /// Whether the writer thread is writing a frame now.
    var writing = false
    var closing = false
    var closed: CheckedContinuation<Void, Never>?
    var finished = false
  }

  init(channel: FrameChannel, capacity: Int) {
    self.channel = channel
    slots = DispatchSemaphore(value: capacity)
    Thread.detachNewThread { [self] in writeLoop() }
  }

  /// Takes a slot for one reply, waiting for one when all are in use; `onWait` runs first then.
  func takeSlot(onWait: () -> Void) {
    guard slots.wait(timeout: .now()) == .timedOut else {
      return
    }
    onWait()
    slots.wait()
  }

  /// Writes a reply, or queues it for the writer thread; it uses the slot its message took.
  ///
  /// A small reply that finds nothing queued and room in the pipe is written at once, on the
  /// caller's thread, sparing a thread wake-up; the rest wait their turn, in order.
  func send(_ envelope: Envelope) {
    let frame = envelope.framed()
    enum Outcome { case written, queued, dropped }
    let outcome: Outcome = state.withLock { state in
      guard !state.closing else { return .dropped }
      if state.queue.isEmpty && !state.writing && channel.sendFrameIfReady(frame) {
        return .written
      }
      state.queue.append(frame)
      return .queued
    }
    switch outcome {
    case .queued: ready.signal()
    case .written, .dropped: slots.signal()
    }
  }

  /// Writes what is queued, then stops the thread.
  func close() async {
    await withCheckedContinuation { continuation in
      let finished = state.withLock { state in
        state.closing = true
        state.closed = continuation
        return state.finished
      }
      if finished {
        continuation.resume()
      } else {
        ready.signal()
      }
    }
  }

  private func writeLoop() {
    while true {
      ready.wait()
      let next: [UInt8]?? = state.withLock { state in
        if !state.queue.isEmpty {
          state.writing = true
          return .some(state.queue.removeFirst())
        }
        return state.closing ? .none : .some(nil)
      }
      switch next {
      case .some(let frame?):
        // A failed write means the client is gone; its replies have nowhere to go.
        try? channel.sendFrame(frame)
        state.withLock { $0.writing = false }
        slots.signal()
      case .some(nil):
        continue
      case .none:
        let waiter = state.withLock { state in
          state.finished = true
          defer { state.closed = nil }
          return state.closed
        }
        waiter?.resume()
        return
      }
    }
  }
}
