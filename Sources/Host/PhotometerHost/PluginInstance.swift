import ChildProcess
import Logging
import PhotometerProtocol

/// One plugin process: starts it, shakes hands, sends it requests, restarts it after it dies.
///
/// It starts the process on first use (or ``start()``), and again on the next request after the
/// process exited, crashed or was killed for taking too long. A plugin that fails to start is not
/// tried again for ``retryDelay``; requests meanwhile get the start failure.
public actor PluginInstance {
  /// How long after a failed start the next request waits before trying again.
  public static let retryDelay: Duration = .seconds(1)
  /// How long the plugin has to answer the host's `Hello`.
  public static let handshakeTimeout: Duration = .seconds(10)

  public nonisolated let configuration: PluginConfiguration
  let hostHello: Hello
  let logger: Logger

  struct Connection: Sendable {
    let child: ChildProcess
    let channel: RequestChannel
    let hello: Hello
  }

  var connection: Connection?
  var starting: Task<Connection, any Error>?
  var lastFailure: (error: ErrorReply, at: ContinuousClock.Instant)?
  /// Set by ``stop()``: no new process starts after it.
  var isStopping = false
  var starts: UInt64 = 0
  var requests: UInt64 = 0
  var errors: UInt64 = 0
  var inFlight = 0
  var latencies = LatencyWindow()

  public init(configuration: PluginConfiguration, hostHello: Hello, logger: Logger) {
    self.configuration = configuration
    self.hostHello = Hello(
      name: hostHello.name, softwareVersion: hostHello.softwareVersion, options: configuration.options)
    var logger = logger
    logger[metadataKey: "plugin"] = "\(configuration.name)"
    self.logger = logger
  }

  /// Starts the process and shakes hands, unless it is already running.
  @discardableResult
  public func start() async -> Result<Hello, ErrorReply> {
    do {
      return .success(try await running().hello)
    } catch {
      return .failure(ErrorReply.from(error, plugin: configuration.name))
    }
  }

  /// Sends `message` and waits for the reply, at most the configured timeout.
  ///
  /// On a timeout the process is killed; the next request starts a new one.
  ///
  /// The time reported is the request's alone; starting the process, when it was not running, is
  /// not part of it.
  public func call(_ message: Message) async -> PluginCall {
    let clock = ContinuousClock()
    var started = clock.now
    var version = ""
    let outcome: Result<Message, ErrorReply>
    do {
      let connection = try await running()
      version = connection.hello.softwareVersion
      started = clock.now
      inFlight += 1
      defer { inFlight -= 1 }
      outcome = await request(message, on: connection)
    } catch {
      outcome = .failure(ErrorReply.from(error, plugin: configuration.name))
    }
    let milliseconds = (clock.now - started).milliseconds
    requests += 1
    if case .failure = outcome {
      errors += 1
    } else {
      latencies.record(milliseconds)
    }
    return PluginCall(outcome: outcome, version: version, milliseconds: milliseconds)
  }

  /// Ends the process politely (its input closed), then with SIGTERM, then SIGKILL.
  public func stop() async {
    isStopping = true
    _ = await starting?.result
    let current = connection
    connection = nil
    guard let current else {
      return
    }
    let status = await current.child.shutDown(closingInput: current.channel.closeOutput)
    logger.debug("plugin stopped", metadata: ["pid": "\(current.child.pid)", "status": "\(status)"])
  }

  /// The plugin's state and counters, for `photometer plugins`.
  public func status() -> PluginStatus {
    let state: String
    var reason = ""
    if !configuration.enabled {
      state = "disabled"
    } else if connection != nil {
      state = inFlight > 0 ? "busy" : "ready"
    } else if starting != nil {
      state = "starting"
    } else if let failure = lastFailure {
      state = "failed"
      reason = failure.error.message
    } else {
      state = "stopped"
    }
    return PluginStatus(
      name: configuration.name,
      state: state,
      pid: connection?.child.pid ?? 0,
      roles: connection?.hello.roles ?? configuration.roles,
      version: connection?.hello.softwareVersion ?? "",
      mode: configuration.mode.rawValue,
      restarts: starts > 0 ? starts - 1 : 0,
      requests: requests,
      errors: errors,
      medianMilliseconds: latencies.median,
      reason: reason
    )
  }
}

extension Duration {
  var milliseconds: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) * 1000 + Double(attoseconds) / 1e15
  }
}
