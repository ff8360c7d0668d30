import Foundation

/// Runs `body` on a thread of its own and waits for it without holding a cooperative thread.
///
/// Tests run in parallel on the cooperative pool, which has one thread per core. A test that
/// computes or blocks for seconds on one of them (decoding and matching images, waiting for a
/// program) stalls every other test of the process, and their timeouts fire for no fault of theirs.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread.detachNewThread {
      continuation.resume(with: Result { try body() })
    }
  }
}
