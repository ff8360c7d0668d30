import ChildProcess
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite struct ChildProcessTests {
  /// A child's standard error lines, and a way to wait for them rather than sleep.
  final class Lines: Sendable {
    let lines = Mutex<[String]>([])
    private let arrivals: AsyncStream<Void>
    private let arrived: AsyncStream<Void>.Continuation

    init() {
      (arrivals, arrived) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func append(_ line: String) {
      lines.withLock { $0.append(line) }
      arrived.yield()
    }

    var all: [String] { lines.withLock { $0 } }

    /// Returns once the lines so far satisfy `condition` (one waiter at a time; the test's time
    /// limit ends a wait for a line that never comes).
    func wait(until condition: ([String]) -> Bool) async {
      if condition(all) { return }
      for await _ in arrivals where condition(all) { return }
    }
  }

  func spawnShell(_ script: String, lines: Lines = Lines()) async throws -> ChildProcess {
    try await ChildProcess.spawn(executable: "/bin/sh", arguments: ["-c", script]) { _, line in lines.append(line) }
  }

  @Test func aChildThatExitsWhenItsInputClosesEndsPolitely() async throws {
    let child = try await spawnShell("cat > /dev/null")
    let status = await child.shutDown(
      closingInput: { close(child.standardInput) }, timeouts: .init(polite: .seconds(5), terminate: .seconds(5)))
    #expect(status == .exited(code: 0))
  }

  // The children sleep far longer than any test may take, so that only a signal ends them, however
  // long a parallel run keeps this test waiting.
  @Test func aChildThatIgnoresItsInputGetsSIGTERM() async throws {
    let child = try await spawnShell("sleep 3600")
    let status = await child.shutDown(
      closingInput: { close(child.standardInput) },
      timeouts: .init(polite: .milliseconds(100), terminate: .seconds(5)))
    #expect(status == .signaled(signal: SIGTERM))
  }

  @Test(.timeLimit(.minutes(1))) func aChildThatIgnoresSIGTERMGetsSIGKILL() async throws {
    let lines = Lines()
    let child = try await spawnShell("trap '' TERM; echo ready >&2; while :; do sleep 1; done", lines: lines)
    await lines.wait { $0.contains("ready") }
    let status = await child.shutDown(
      closingInput: { close(child.standardInput) },
      timeouts: .init(polite: .milliseconds(100), terminate: .milliseconds(100)))
    #expect(status == .signaled(signal: SIGKILL))
  }

  @Test(.timeLimit(.minutes(1))) func standardErrorArrivesLineByLineWithLongLinesSplit() async throws {
    let lines = Lines()
    let child = try await spawnShell(
      "echo one >&2; printf 'two\\r\\n' >&2; head -c 20000 /dev/zero | tr '\\0' x >&2", lines: lines)
    #expect(await child.waitForExit() == .exited(code: 0))
    await lines.wait { $0.count >= 5 }
    #expect(lines.all.prefix(2) == ["one", "two"])
    #expect(lines.all.dropFirst(2).map(\.count) == [8192, 8192, 3616])
  }

  @Test func aMissingProgramIsASpawnError() async {
    await #expect(throws: SpawnError.self) {
      try await ChildProcess.spawn(executable: "/nonexistent/program", arguments: []) { _, _ in }
    }
  }

  @Test func waitingWithATimeoutReturnsWhileTheChildRuns() async throws {
    let child = try await spawnShell("sleep 3600")
    #expect(await child.waitForExit(timeout: .milliseconds(50)) == nil)
    child.send(signal: SIGKILL)
    #expect(await child.waitForExit() == .signaled(signal: SIGKILL))
  }
}
