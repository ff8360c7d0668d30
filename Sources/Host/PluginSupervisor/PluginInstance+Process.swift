import ChildProcess
import Logging
import PhotometerProtocol

#if canImport(Glibc)
  import Glibc
#endif

extension PluginInstance {
  /// The live connection, starting the process first if there is none and none is due later.
  func running() async throws -> Connection {
    if let connection {
      return connection
    }
    if let starting {
      return try await starting.value
    }
    if let refusal = startRefusal() {
      throw refusal
    }
    let task = Task { try await launch() }
    starting = task
    defer { starting = nil }
    do {
      let connection = try await task.value
      guard !isStopping else {
        await connection.child.shutDown(closingInput: connection.channel.closeOutput)
        throw ErrorReply(.shuttingDown, "the host is stopping its plugins")
      }
      self.connection = connection
      lastVersion = connection.hello.softwareVersion
      lastProblem = nil
      return connection
    } catch {
      let reply = ErrorReply.from(error, plugin: configuration.name)
      if !isStopping {
        logger.error("plugin did not start", metadata: ["reason": "\(reply.message)"])
        if permanentFailure == nil {
          ended(because: reply)
        }
      }
      throw reply
    }
  }

  /// Why no process may start now, if it may not.
  private func startRefusal() -> ErrorReply? {
    if isStopping {
      return ErrorReply(.shuttingDown, "the host is stopping this plugin", plugin: configuration.name)
    }
    if let quarantine = crashes.quarantine {
      return ErrorReply(.pluginFailed, quarantine, plugin: configuration.name)
    }
    if let permanentFailure {
      return permanentFailure
    }
    if let restart {
      let wait = max(restart.at - .now, .zero)
      let last = lastProblem.map { "; last: \($0.message)" } ?? ""
      return ErrorReply(
        .pluginFailed, "the plugin is restarting after a crash loop, back in \(wait)\(last)", plugin: configuration.name
      )
    }
    return nil
  }

  private func launch() async throws -> Connection {
    guard configuration.enabled else {
      throw ErrorReply(.noPlugins, "the plugin is disabled in the configuration")
    }
    if let expected = configuration.sha256 {
      do throws(ErrorReply) {
        try ExecutableDigest.verify(configuration.command[0], sha256: expected)
      } catch {
        permanentFailure = ErrorReply(error.code, error.message, plugin: configuration.name)
        throw error
      }
    }
    if lastProblem != nil {
      lastRestarted = .now
    }
    starts += 1
    let logger = self.logger
    let child: ChildProcess
    do {
      child = try await ChildProcess.spawn(
        executable: configuration.command[0],
        arguments: Array(configuration.command.dropFirst()),
        environment: configuration.environment,
        directory: configuration.directory
      ) { pid, line in
        logger.info("\(line)", metadata: ["pid": "\(pid)", "stream": "stderr"])
      }
    } catch {
      // The program is missing or not executable: no restart mends that; a reload may.
      permanentFailure = ErrorReply(.pluginFailed, "\(error)", plugin: configuration.name)
      throw error
    }
    let channel = RequestChannel(
      frames: FrameChannel(input: child.standardOutput, output: child.standardInput),
      onUnsolicited: { envelope in
        logger.warning(
          "plugin sent an unsolicited \(envelope.message.kind)", metadata: ["request": "\(envelope.requestID)"])
      },
      onClose: { [weak self] reason in
        Task { await self?.connectionEnded(child: child, reason: reason) }
      }
    )
    channel.start()
    do {
      let hello = try await handshake(on: channel)
      logger.info("plugin ready", metadata: ["pid": "\(child.pid)", "version": "\(hello.softwareVersion)"])
      return Connection(child: child, channel: channel, hello: hello)
    } catch {
      await child.shutDown(
        closingInput: channel.closeOutput, timeouts: .init(polite: .milliseconds(500), terminate: .seconds(1)))
      throw await explain(error, child: child)
    }
  }

  private func handshake(on channel: RequestChannel) async throws -> Hello {
    let reply = try await channel.request(
      .hello(hostHello), timeout: max(Self.handshakeTimeout, configuration.timeout))
    guard case .hello(let hello) = reply else {
      throw ErrorReply(.pluginFailed, "the plugin answered Hello with \(reply.kind)")
    }
    if let refusal = hostHello.refusal(ofPeer: hello) {
      throw refusal
    }
    let missing = configuration.roles.filter { !hello.roles.contains($0) }
    guard missing.isEmpty else {
      throw ErrorReply(
        .pluginFailed,
        "the configuration gives it the role \(missing.map { "\($0)" }.joined(separator: ", ")), "
          + "but its Hello offers only \(hello.roles.map { "\($0)" }.joined(separator: ", "))"
      )
    }
    return hello
  }

  /// Sends `message` and waits for the reply. An identify request that names its reference set
  /// goes to a plugin that keeps sets (protocol 1.2 on) by the name alone while none of its
  /// references carries an image, and once more with the list when the plugin does not keep it;
  /// to an older plugin it goes without the name, which that plugin would refuse as unknown.
  func exchange(_ message: Message, on connection: Connection) async -> Result<Message, ErrorReply> {
    let message = message.adapted(for: connection.hello.version, by: adaptCrop)
    guard case .identify(var listed) = message, !listed.referenceSet.isEmpty else {
      return await request(message, on: connection)
    }
    guard connection.hello.version.includes(.referenceSets) else {
      listed.referenceSet = ""
      return await request(.identify(listed), on: connection)
    }
    guard listed.references.allSatisfy({ $0.image.data.isEmpty }) else {
      return await request(message, on: connection)
    }
    var named = listed
    named.references = []
    let reply = await request(.identify(named), on: connection)
    guard case .success(.pluginCandidates(let answer)) = reply, answer.unknownReferenceSet else {
      return reply
    }
    return await request(message, on: connection)
  }

  func request(_ message: Message, on connection: Connection) async -> Result<Message, ErrorReply> {
    do {
      return .success(try await connection.channel.request(message, timeout: configuration.timeout))
    } catch let error as RequestChannel.TimedOut {
      logger.warning("plugin timed out; restarting it", metadata: ["pid": "\(connection.child.pid)"])
      let reply = ErrorReply(.timeout, error.description, plugin: configuration.name)
      await kill(connection, because: reply)
      return .failure(reply)
    } catch let error as RequestChannel.Closed {
      return .failure(ErrorReply.from(await explain(error, child: connection.child), plugin: configuration.name))
    } catch {
      return .failure(ErrorReply.from(error, plugin: configuration.name))
    }
  }

  /// Kills a process that no longer answers, and restarts it as the policy says.
  private func kill(_ stale: Connection, because reason: ErrorReply) async {
    guard connection?.child === stale.child else {
      return
    }
    connection = nil
    stale.child.send(signal: SIGKILL)
    stale.channel.closeOutput()
    _ = await stale.child.waitForExit()
    ended(because: reason)
  }

  /// The process's output ended: it exited, crashed, or wrote something that is not a frame.
  private func connectionEnded(child: ChildProcess, reason: RequestChannel.Closed) async {
    guard connection?.child === child else {
      return
    }
    connection = nil
    // A process that wrote garbage may still be running: it is killed like one that hangs.
    var status = await child.waitForExit(timeout: .milliseconds(200))
    if status == nil {
      child.send(signal: SIGKILL)
      status = await child.waitForExit()
    }
    logger.error(
      "plugin stopped unexpectedly",
      metadata: ["pid": "\(child.pid)", "status": "\(status.map { "\($0)" } ?? "unknown")", "reason": "\(reason)"]
    )
    ended(because: ErrorReply(.pluginFailed, "the plugin \(status.map { "\($0)" } ?? "stopped"): \(reason)"))
  }

  /// Records an unexpected end and restarts the process now, later, or never.
  private func ended(because reason: ErrorReply) {
    lastProblem = reason
    guard !isStopping else {
      return
    }
    switch crashes.ended(lastRestarted: lastRestarted) {
    case .restartNow:
      Task { await start() }
    case .restartAfter(let delay):
      logger.warning("plugin is crashing in a loop; backing off", metadata: ["delay": "\(delay)"])
      let at = ContinuousClock.now + delay
      restart = (
        at,
        Task { [weak self] in
          try? await Task.sleep(until: at, clock: .continuous)
          await self?.restartAfterBackOff()
        }
      )
    case .quarantine(let why):
      logger.error("plugin quarantined", metadata: ["reason": "\(why)"])
    }
  }

  private func restartAfterBackOff() async {
    restart = nil
    guard !Task.isCancelled, !isStopping else {
      return
    }
    await start()
  }

  /// Adds how the process ended to a connection error, when it ended, keeping why the
  /// connection ended (the quoted bytes of garbage on its output: the process may be killed for
  /// it before this wait is over).
  private func explain(_ error: any Error, child: ChildProcess) async -> any Error {
    guard let closed = error as? RequestChannel.Closed,
      let status = await child.waitForExit(timeout: .milliseconds(200))
    else {
      return error
    }
    return ErrorReply(.pluginFailed, "the plugin \(status) (pid \(child.pid)): \(closed.reason)")
  }
}
