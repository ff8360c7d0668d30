import CSpawn
import Foundation
import Synchronization

/// A running child process whose standard input and output are pipes to this process, and whose
/// standard error is read line by line into a handler.
///
/// The caller owns ``standardInput`` and ``standardOutput`` (typically by handing them to a
/// `FrameChannel`). The child is reaped by a waiter thread; ``waitForExit()`` returns its status.
public final class ChildProcess: Sendable {
  public let pid: Int32
  /// The write end of the child's standard input.
  public let standardInput: Int32
  /// The read end of the child's standard output.
  public let standardOutput: Int32

  private let exit = Mutex<ExitState>(ExitState())

  private struct ExitState {
    var status: TerminationStatus?
    var waiters: [UInt64: CheckedContinuation<TerminationStatus?, Never>] = [:]
    var nextWaiter: UInt64 = 0
  }

  private init(pid: Int32, standardInput: Int32, standardOutput: Int32) {
    self.pid = pid
    self.standardInput = standardInput
    self.standardOutput = standardOutput
  }

  /// Starts `executable`, an absolute path.
  ///
  /// - Parameters:
  ///   - environment: added to (and overriding) this process's environment.
  ///   - dieWithParent: on Linux, the child gets SIGKILL when this process dies, however it dies.
  ///   - onStandardErrorLine: called on a reader thread with the child's pid and each line it
  ///     writes to its standard error (without the newline; lines over 8 KiB are split).
  public static func spawn(
    executable: String,
    arguments: [String],
    environment: [String: String] = [:],
    directory: String? = nil,
    dieWithParent: Bool = true,
    onStandardErrorLine: @escaping @Sendable (_ pid: Int32, _ line: String) -> Void
  ) async throws(SpawnError) -> ChildProcess {
    let input = try makePipe(executable, capacity: pipeCapacity)
    let output = try makePipe(executable, capacity: pipeCapacity)
    let errors = try makePipe(executable, capacity: 0)
    let argv = [executable] + arguments
    let envp = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0)=\($1)" }
    let result = await SpawnThread.shared.run {
      withCStrings(argv) { argv in
        withCStrings(envp) { envp in
          var pid: pid_t = 0
          let error = photometer_spawn(
            executable, argv, envp, directory, input.read, output.write, errors.write, dieWithParent ? 1 : 0, &pid)
          return error == 0
            ? Result<Int32, SpawnError>.success(pid) : .failure(SpawnError(executable: executable, errno: error))
        }
      }
    }
    close(input.read)
    close(output.write)
    close(errors.write)
    let pid: Int32
    switch result {
    case .success(let value):
      pid = value
    case .failure(let error):
      close(input.write)
      close(output.read)
      close(errors.read)
      throw error
    }
    let child = ChildProcess(pid: pid, standardInput: input.write, standardOutput: output.read)
    drainLines(of: errors.read) { onStandardErrorLine(pid, $0) }
    Thread.detachNewThread { child.reap() }
    return child
  }

  /// The child's status once it has exited.
  public var status: TerminationStatus? {
    exit.withLock { $0.status }
  }

  /// Waits until the child has exited.
  public func waitForExit() async -> TerminationStatus {
    // Without cancellation, only the child's exit ends the wait.
    await withoutCancellation { await self.exitOrCancellation() }!
  }

  /// Waits until the child has exited or `timeout` has passed.
  public func waitForExit(timeout: Duration) async -> TerminationStatus? {
    await withTaskGroup(of: TerminationStatus?.self) { group in
      group.addTask { await self.exitOrCancellation() }
      group.addTask {
        try? await Task.sleep(for: timeout)
        return nil
      }
      let first = await group.next() ?? nil
      group.cancelAll()
      return first ?? status
    }
  }

  /// The exit status, or `nil` if the calling task is cancelled first.
  private func exitOrCancellation() async -> TerminationStatus? {
    let id = exit.withLock { state in
      defer { state.nextWaiter += 1 }
      return state.nextWaiter
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let status: TerminationStatus?? = exit.withLock { state in
          if let status = state.status {
            return .some(status)
          }
          if Task.isCancelled {
            return .some(nil)
          }
          state.waiters[id] = continuation
          return .none
        }
        if let status {
          continuation.resume(returning: status)
        }
      }
    } onCancel: {
      exit.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: nil)
    }
  }

  /// Sends `signal` to the child, unless it has already been reaped (its pid may be reused).
  public func send(signal: Int32) {
    exit.withLock { state in
      if state.status == nil {
        kill(pid, signal)
      }
    }
  }

  private func reap() {
    var status: Int32 = 0
    var result: pid_t
    repeat {
      result = waitpid(pid, &status, 0)
    } while result < 0 && errno == EINTR
    let termination = result == pid ? TerminationStatus(waitStatus: status) : .exited(code: -1)
    let waiters = exit.withLock { state in
      state.status = termination
      defer { state.waiters = [:] }
      return state.waiters.values
    }
    for waiter in waiters {
      waiter.resume(returning: termination)
    }
  }
}

/// The buffer asked for the child's standard input and output: 1 MiB, Linux's limit for
/// unprivileged processes, so that an image crosses with few context switches.
let pipeCapacity: Int32 = 1 << 20

private func makePipe(_ executable: String, capacity: Int32) throws(SpawnError) -> (read: Int32, write: Int32) {
  var fds: [Int32] = [0, 0]
  guard photometer_pipe_cloexec(&fds, capacity) == 0 else {
    throw SpawnError(executable: executable, errno: errno)
  }
  return (fds[0], fds[1])
}

/// Calls `body` with a NULL-terminated C array of copies of `strings`.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
  let pointers = strings.map { strdup($0) } + [nil]
  defer { pointers.forEach { free($0) } }
  return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}

/// Reads `fd` on a thread of its own until it ends, handing each line to `handler`; closes `fd`.
func drainLines(of fd: Int32, into handler: @escaping @Sendable (String) -> Void) {
  Thread.detachNewThread {
    var splitter = LineSplitter()
    var chunk = [UInt8](repeating: 0, count: 16_384)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR {
        continue
      }
      guard count > 0 else {
        break
      }
      splitter.append(chunk[..<count]).forEach(handler)
    }
    splitter.finish().map(handler)
    close(fd)
  }
}

/// Runs `operation` in a task that the caller's cancellation does not reach.
private func withoutCancellation<T: Sendable>(_ operation: @escaping @Sendable () async -> T) async -> T {
  await Task { await operation() }.value
}
