import ChildProcess
import Logging
import PhotometerProtocol

#if canImport(Glibc)
  import Glibc
#endif

extension PluginInstance {
  /// The live connection, starting the process first if there is none.
  func running() async throws -> Connection {
    if let connection {
      return connection
    }
    if let starting {
      return try await starting.value
    }
    guard !isStopping else {
      throw ErrorReply(.shuttingDown, "the host is stopping its plugins")
    }
    if let failure = lastFailure, ContinuousClock.now < failure.at + Self.retryDelay {
      throw failure.error
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
      lastFailure = nil
      return connection
    } catch {
      let reply = ErrorReply.from(error, plugin: configuration.name)
      lastFailure = (reply, ContinuousClock.now)
      if !isStopping {
        logger.error("plugin did not start", metadata: ["reason": "\(reply.message)"])
      }
      throw reply
    }
  }

  private func launch() async throws -> Connection {
    guard configuration.enabled else {
      throw ErrorReply(.noPlugins, "the plugin is disabled in the configuration")
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
      throw ErrorReply(.pluginFailed, "\(error)")
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
    let reply = try await channel.request(.hello(hostHello), timeout: Self.handshakeTimeout)
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

  func request(_ message: Message, on connection: Connection) async -> Result<Message, ErrorReply> {
    do {
      return .success(try await connection.channel.request(message, timeout: configuration.timeout))
    } catch let error as RequestChannel.TimedOut {
      logger.warning("plugin timed out; restarting it", metadata: ["pid": "\(connection.child.pid)"])
      await replace(connection)
      return .failure(ErrorReply(.timeout, error.description, plugin: configuration.name))
    } catch let error as RequestChannel.Closed {
      return .failure(ErrorReply.from(await explain(error, child: connection.child), plugin: configuration.name))
    } catch {
      return .failure(ErrorReply.from(error, plugin: configuration.name))
    }
  }

  /// Kills a process that no longer answers; the next request starts a new one.
  private func replace(_ stale: Connection) async {
    if connection?.child === stale.child {
      connection = nil
    }
    stale.child.send(signal: SIGKILL)
    stale.channel.closeOutput()
    _ = await stale.child.waitForExit()
  }

  private func connectionEnded(child: ChildProcess, reason: RequestChannel.Closed) async {
    guard connection?.child === child else {
      return
    }
    connection = nil
    let status = await child.waitForExit(timeout: .seconds(1))
    logger.warning(
      "plugin stopped; it restarts on the next request",
      metadata: [
        "pid": "\(child.pid)", "status": "\(status.map { "\($0)" } ?? "still running")", "reason": "\(reason)",
      ]
    )
  }

  /// Adds how the process ended to a connection error, when it ended.
  private func explain(_ error: any Error, child: ChildProcess) async -> any Error {
    guard error is RequestChannel.Closed, let status = await child.waitForExit(timeout: .milliseconds(200)) else {
      return error
    }
    return ErrorReply(.pluginFailed, "the plugin \(status) (pid \(child.pid))")
  }
}
