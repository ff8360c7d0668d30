import Dispatch
import Foundation
import Synchronization

/// The one thread that forks every child.
///
/// Linux delivers a child's parent-death signal when the *thread* that forked it exits, not when
/// the process does. Cooperative pool threads come and go, so children are forked here, on a thread
/// that lives as long as the process.
final class SpawnThread: Sendable {
  static let shared = SpawnThread()

  private let jobs = Mutex<[@Sendable () -> Void]>([])
  private let ready = DispatchSemaphore(value: 0)

  private init() {
    Thread.detachNewThread { [self] in
      while true {
        ready.wait()
        let job = jobs.withLock { $0.removeFirst() }
        job()
      }
    }
  }

  /// Runs `job` on the spawn thread and waits for its result.
  func run<T: Sendable>(_ job: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
      jobs.withLock { $0.append { continuation.resume(returning: job()) } }
      ready.signal()
    }
  }
}
