import ArgumentParser
import Foundation
import Logging
import PhotometerHost
import PhotometerProtocol

/// `photometer-host`: the server a client starts as a subprocess and speaks frames to over its
/// standard input and output.
@main
struct HostCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "photometer-host",
    abstract: "Serve Photometer requests over standard input and output (length-framed protobuf).",
    discussion: "Started by a client such as `photometer`; see docs/protocol.md. Logs go to standard error."
  )

  @Option(help: "The plugin configuration.")
  var plugins: String = HostDefaults.pluginsFile

  @Option(help: "The SQLite database file.")
  var db: String = HostDefaults.databaseFile

  @Option(help: "trace, debug, info, notice, warning, error or critical.")
  var logLevel: Logger.Level = .info

  @Option(help: "The largest frame accepted from the client, in bytes.")
  var maxFrameSize: Int = FrameDecoder.defaultMaxFrameSize

  func validate() throws {
    guard maxFrameSize > 0 else {
      throw ValidationError("--max-frame-size must be over 0")
    }
  }

  func run() async throws {
    let protocolOutput = StandardStreams.reserveStandardOutputForFrames()
    let level = logLevel
    LoggingSystem.bootstrap { label in
      var handler = StreamLogHandler.standardError(label: label)
      handler.logLevel = level
      return handler
    }
    let logger = Logger(label: "photometer-host")
    let configurations: [PluginConfiguration]
    do {
      configurations = try PluginConfiguration.load(contentsOf: plugins, programFolder: HostDefaults.executableFolder)
    } catch {
      logger.error("\(error.message)")
      throw ExitCode(1)
    }
    let pluginSet = PluginSet(
      configurations: configurations, hostHello: Hello(name: HostServer.name, softwareVersion: HostServer.version),
      logger: logger)
    let server = HostServer(plugins: pluginSet, logger: logger, maxFrameSize: maxFrameSize)
    logger.info("host started", metadata: ["pid": "\(getpid())", "plugins": "\(configurations.count)", "db": "\(db)"])
    Task { await pluginSet.startAll() }
    let status = await server.run(input: 0, output: protocolOutput)
    logger.info("host stopped", metadata: ["status": "\(status)"])
    throw ExitCode(status)
  }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
