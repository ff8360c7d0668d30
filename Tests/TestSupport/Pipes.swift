import Foundation

/// A pipe's two ends.
public struct Pipe: Sendable {
  public let read: Int32
  public let write: Int32

  /// - Parameter capacity: the pipe's buffer in bytes; `nil` keeps the system's default (64 KiB).
  public init(capacity: Int32? = nil) {
    // As photometer-host and plugins do: a peer that goes away makes writes fail with EPIPE
    // instead of killing the test process.
    signal(SIGPIPE, SIG_IGN)
    var fds: [Int32] = [0, 0]
    precondition(pipe(&fds) == 0, "pipe failed")
    if let capacity {
      _ = fcntl(fds[0], 1031 /* F_SETPIPE_SZ */, capacity)
    }
    read = fds[0]
    write = fds[1]
  }
}

/// Whether the process `pid` exists (a zombie counts as gone once reaped by its parent).
public func processExists(_ pid: Int32) -> Bool {
  kill(pid, 0) == 0 || errno == EPERM
}

/// How long a test waits for an event before it calls it missing. Only a hang takes this long:
/// a wait returns as soon as its event comes, and with the tests run in parallel on 2 cores a
/// process start or a reply can take seconds while other tests compute.
public let eventLimit: Duration = .seconds(60)

/// Waits up to `timeout` for `condition` to hold, checking every 10 ms.
public func eventually(timeout: Duration = eventLimit, _ condition: () async -> Bool) async -> Bool {
  let deadline = ContinuousClock.now + timeout
  while ContinuousClock.now < deadline {
    if await condition() {
      return true
    }
    try? await Task.sleep(for: .milliseconds(10))
  }
  return await condition()
}

/// A fresh path for the test plugin's `started_file` option, and how many requests the plugin has
/// started so far: tests wait for a request to reach a plugin instead of sleeping.
public struct StartedFile: Sendable {
  public let path: String

  public init() {
    path = Scratch.folder.appendingPathComponent("started-\(UUID().uuidString)").path
  }

  public var count: Int {
    (try? String(contentsOfFile: path, encoding: .utf8))?.split(separator: "\n").count ?? 0
  }

  /// Waits until `count` requests have started; false if they did not within `timeout`.
  public func wait(for count: Int = 1, timeout: Duration = eventLimit) async -> Bool {
    await eventually(timeout: timeout) { self.count >= count }
  }
}
