import ChildProcess
import Foundation
import PhotometerProtocol
import Synchronization

/// A connection to a `photometer-host` this process started: typed requests, replies matched by id.
public final class HostClient: Sendable {
  /// Why the host could not be used.
  public enum Failure: Error, CustomStringConvertible {
    /// The host program could not be started.
    case cannotStart(SpawnError)
    /// The host refused the handshake or answered it with something else.
    case handshakeFailed(String)
    /// The host answered a request with a message of the wrong kind.
    case unexpectedReply(request: String, reply: String)
    /// The host refused to start (exit status 1: its database or plugin configuration is
    /// unusable); `reason` is the error it logged.
    case refusedToStart(reason: String)

    public var description: String {
      switch self {
      case .cannotStart(let error): "\(error)"
      case .handshakeFailed(let reason): "the host refused the handshake: \(reason)"
      case .unexpectedReply(let request, let reply): "the host answered \(request) with \(reply)"
      case .refusedToStart(let reason): reason
      }
    }
  }

  /// The host's `Hello`.
  public let host: Hello
  public let process: ChildProcess
  private let channel: RequestChannel

  private init(host: Hello, process: ChildProcess, channel: RequestChannel) {
    self.host = host
    self.process = process
    self.channel = channel
  }

  /// Starts the host at `executable` with `arguments` and shakes hands.
  ///
  /// - Parameters:
  ///   - name: this client's name in its `Hello`.
  ///   - onLogLine: each line the host writes to its standard error (its log).
  public static func launch(
    executable: String,
    arguments: [String] = [],
    name: String = "photometer",
    version: String = PhotometerVersion.current,
    onLogLine: @escaping @Sendable (String) -> Void = { _ in }
  ) async throws -> HostClient {
    // A host that is gone must make a write fail, not end this process (FrameChannel).
    signal(SIGPIPE, SIG_IGN)
    let process: ChildProcess
    let lastError = Mutex<String?>(nil)
    do {
      process = try await ChildProcess.spawn(executable: executable, arguments: arguments) { _, line in
        if let reason = loggedError(line) {
          lastError.withLock { $0 = reason }
        }
        onLogLine(line)
      }
    } catch {
      throw Failure.cannotStart(error)
    }
    let channel = RequestChannel(frames: FrameChannel(input: process.standardOutput, output: process.standardInput))
    channel.start()
    do {
      let reply = try await channel.request(.hello(Hello(name: name, softwareVersion: version)))
      guard case .hello(let host) = reply else {
        throw Failure.handshakeFailed("it answered with \(reply.kind)")
      }
      return HostClient(host: host, process: process, channel: channel)
    } catch {
      await process.shutDown(closingInput: channel.closeOutput)
      if let error = error as? Failure {
        throw error
      }
      if process.status == .exited(code: 1), let reason = lastError.withLock({ $0 }) {
        throw Failure.refusedToStart(reason: reason)
      }
      throw Failure.handshakeFailed("\(error)")
    }
  }

  /// Sends a request and waits for its reply; an error reply is thrown as ``ErrorReply``.
  public func request(_ message: Message) async throws -> Message {
    try await channel.request(message)
  }

  /// The host's round trip for a `Ping` with `payload`.
  public func ping(payload: [UInt8] = []) async throws -> Duration {
    let clock = ContinuousClock()
    let start = clock.now
    let reply = try await request(.ping(payload: payload))
    guard case .pong = reply else {
      throw Failure.unexpectedReply(request: Message.ping(payload: []).kind, reply: reply.kind)
    }
    return clock.now - start
  }

  /// Sends a typed request and waits for its answer.
  ///
  /// - Throws: the host's ``ErrorReply``, or ``Failure/unexpectedReply(request:reply:)`` when
  ///   the reply is of another kind.
  public func send<Response>(_ request: HostRequest<Response>) async throws -> Response {
    let reply = try await self.request(request.message)
    guard let answer = request.answer(in: reply) else {
      throw Failure.unexpectedReply(request: request.message.kind, reply: reply.kind)
    }
    return answer
  }

  /// Asks the host to finish its work and exit, and waits until it has.
  @discardableResult
  public func shutdown() async throws -> TerminationStatus {
    let reply = try await request(.shutdown)
    guard case .shutdownComplete = reply else {
      throw Failure.unexpectedReply(request: Message.shutdown.kind, reply: reply.kind)
    }
    return await close()
  }

  /// Closes the host's input, which ends it, and waits (then escalates) until it has exited.
  @discardableResult
  public func close() async -> TerminationStatus {
    await process.shutDown(
      closingInput: channel.closeOutput, timeouts: .init(polite: .seconds(5), terminate: .seconds(2)))
  }
}

/// The message of an error line of the host's log (`TIME error LABEL: [SOURCE] message`), or nil
/// for any other line.
func loggedError(_ line: String) -> String? {
  guard let level = line.range(of: " error "),
    let source = line.range(of: "] ", range: level.upperBound..<line.endIndex)
  else {
    return nil
  }
  return String(line[source.upperBound...])
}
