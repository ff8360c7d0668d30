import ChildProcess
import Logging
import PhotometerProtocol

/// One plugin process, supervised: started, handshaken, sent requests, and restarted after it
/// ends unexpectedly, with the back-off and quarantine of its ``RestartPolicy``.
///
/// The pool gives an instance one request at a time. A request that finds the process starting
/// waits for it; one that finds it backing off or quarantined fails at once with the reason.
public actor PluginInstance {
  /// How long the plugin has to answer the host's `Hello`, or its configured timeout when that is
  /// longer: a plugin given longer to answer is given as long to start.
  public static let handshakeTimeout: Duration = .seconds(10)
  /// How long a drained plugin has to exit after its input is closed, then after SIGTERM.
  public static let shutdownTimeouts = ChildProcess.ShutdownTimeouts.standard

  public nonisolated let configuration: PluginConfiguration
  let hostHello: Hello
  let adaptCrop: CropAdapter?
  let logger: Logger
  let crashes: CrashRecord

  struct Connection: Sendable {
    let child: ChildProcess
    let channel: RequestChannel
    let hello: Hello
  }

  var connection: Connection?
  var starting: Task<Connection, any Error>?
  /// When a backed-off restart is due, and the task that will make it.
  var restart: (at: ContinuousClock.Instant, task: Task<Void, Never>)?
  /// Why the process is not running: its last end or failed start.
  var lastProblem: ErrorReply?
  /// A failure no restart can mend (the executable's checksum is wrong).
  var permanentFailure: ErrorReply?
  /// When the process was last started after an unexpected end.
  var lastRestarted: ContinuousClock.Instant?
  var lastVersion = ""
  /// Set by ``stop()``: no new process starts after it.
  var isStopping = false
  var starts: UInt64 = 0

  init(
    configuration: PluginConfiguration, number: Int, hostHello: Hello, adaptCrop: CropAdapter? = nil,
    crashes: CrashRecord, logger: Logger
  ) {
    self.configuration = configuration
    self.adaptCrop = adaptCrop
    self.hostHello = Hello(
      name: hostHello.name, softwareVersion: hostHello.softwareVersion, options: configuration.options)
    self.crashes = crashes
    var logger = logger
    logger[metadataKey: "plugin"] = "\(configuration.name)"
    if configuration.instances > 1 {
      logger[metadataKey: "instance"] = "\(number)"
    }
    self.logger = logger
  }

  /// Starts the process and shakes hands, unless it is already running.
  @discardableResult
  func start() async -> Result<Hello, ErrorReply> {
    do {
      return .success(try await running().hello)
    } catch {
      return .failure(ErrorReply.from(error, plugin: configuration.name))
    }
  }

  /// Sends `message` and waits for the reply, at most the configured timeout.
  ///
  /// The time reported is the request's alone; starting the process, when it was not running, is
  /// not part of it.
  func call(_ message: Message) async -> PluginCall<Message> {
    let clock = ContinuousClock()
    var started = clock.now
    var version = lastVersion
    let outcome: Result<Message, ErrorReply>
    do {
      let connection = try await running()
      version = connection.hello.softwareVersion
      started = clock.now
      outcome = await exchange(message, on: connection)
    } catch {
      outcome = .failure(ErrorReply.from(error, plugin: configuration.name))
    }
    return PluginCall(outcome: outcome, version: version, milliseconds: (clock.now - started).milliseconds)
  }

  /// Ends the process politely (its input closed), then with SIGTERM, then SIGKILL; no restart
  /// follows.
  func stop() async {
    isStopping = true
    restart?.task.cancel()
    restart = nil
    _ = await starting?.result
    let current = connection
    connection = nil
    guard let current else {
      return
    }
    let status = await current.child.shutDown(
      closingInput: current.channel.closeOutput, timeouts: Self.shutdownTimeouts)
    logger.debug("plugin stopped", metadata: ["pid": "\(current.child.pid)", "status": "\(status)"])
  }

  /// This instance's part in its plugin's status.
  struct Status: Sendable {
    var state: PluginState
    var pid: Int32?
    var version: String
    var roles: [Role]?
    var restarts: UInt64
    var reason: String
  }

  func status() -> Status {
    let state: PluginState
    var reason = lastProblem?.message ?? ""
    if let connection {
      return Status(
        state: .ready, pid: connection.child.pid, version: connection.hello.softwareVersion,
        roles: connection.hello.roles, restarts: restarts, reason: "")
    } else if let quarantine = crashes.quarantine {
      state = .quarantined
      reason = quarantine
    } else if let permanentFailure {
      state = .failed
      reason = permanentFailure.message
    } else if starting != nil {
      state = .starting
    } else if let restart {
      state = .restarting
      reason = "back-off after a crash loop, restarts in \(max(restart.at - .now, .zero)); last: \(reason)"
    } else if isStopping {
      state = .stopped
    } else {
      state = lastProblem == nil ? .stopped : .failed
    }
    return Status(state: state, pid: nil, version: lastVersion, roles: nil, restarts: restarts, reason: reason)
  }

  private var restarts: UInt64 { starts > 0 ? starts - 1 : 0 }
}
