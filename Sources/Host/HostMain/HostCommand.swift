import ArgumentParser
import ChildProcess
import Foundation
import Logging
import PhotometerHost
import PhotometerProtocol
import PhotometerStore
import PluginSupervisor

/// `photometer-host`: the server a client starts as a subprocess and speaks frames to over its
/// standard input and output.
@main
struct HostCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "photometer-host",
    abstract: "Serve Photometer requests over standard input and output (length-framed protobuf).",
    discussion: "Started by a client such as `photometer`; see docs/protocol.md. Logs go to standard error.",
    version: PhotometerVersion.current
  )

  @Option(help: "The plugin configuration.")
  var plugins: String = HostDefaults.pluginsFile

  @Option(help: "The SQLite database file.")
  var db: String = HostDefaults.databaseFile

  @Option(help: "trace, debug, info, notice, warning, error or critical.")
  var logLevel: Logger.Level = .info

  @Option(help: "The largest frame accepted from the client, in bytes.")
  var maxFrameSize: Int = FrameDecoder.defaultMaxFrameSize

  @Option(help: "Append every request and reply to this file, for `photometer replay`.")
  var record: String?

  @Option(
    help: """
      When plugins start: at-launch (all at once, for a client that keeps the host running) or \
      on-demand (each when a request first needs it, as the photometer command asks).
      """)
  var startPlugins: PluginStart = .atLaunch

  @Flag(
    help: """
      Open the database for reading only: changes are refused and nothing writes to the file, not \
      even the open (a missing file or an older schema is still created or migrated).
      """)
  var readOnly = false

  func validate() throws {
    guard maxFrameSize > 0 else {
      throw ValidationError("--max-frame-size must be over 0")
    }
  }

  func run() async throws {
    let protocolOutput = StandardStreams.reserveStandardOutputForFrames()
    LargeFrameMemory.keepFreedBlocks()
    let level = logLevel
    LoggingSystem.bootstrap { label in
      var handler = StreamLogHandler.standardError(label: label)
      handler.logLevel = level
      return handler
    }
    let logger = Logger(label: "photometer-host")
    let file = plugins
    let source: PluginSet.Source = { () throws(ConfigurationError) in
      try PluginConfiguration.load(contentsOf: file, programFolder: ChildProcess.executableFolder)
    }
    let configurations: [PluginConfiguration]
    do {
      configurations = try source()
    } catch {
      logger.error("\(error.message)")
      throw ExitCode(1)
    }
    let pluginSet = PluginSet(
      configurations: configurations, hostHello: Hello(name: HostServer.name, softwareVersion: HostServer.version),
      source: source, adaptCrop: HostServer.adaptCrop, logger: logger)
    let hangUp = Self.reloadOnHangUp(pluginSet)
    let store: MeterStore
    do {
      store = try MeterStore(path: db, access: readOnly ? .readOnly : .readWrite)
    } catch {
      logger.error("\(error)")
      throw ExitCode(1)
    }
    let recorder: Recorder?
    do {
      recorder = try record.map { (path) throws(Recorder.OpenError) in try Recorder(path: path) }
    } catch {
      logger.error("\(error)")
      throw ExitCode(1)
    }
    let server = HostServer(
      plugins: pluginSet, store: store, logger: logger, maxFrameSize: maxFrameSize, recorder: recorder,
      pluginStart: startPlugins)
    logger.info("host started", metadata: ["pid": "\(getpid())", "plugins": "\(configurations.count)", "db": "\(db)"])
    let status = await server.run(input: 0, output: protocolOutput)
    hangUp.cancel()
    logger.info("host stopped", metadata: ["status": "\(status)"])
    throw ExitCode(status)
  }
}

extension HostCommand {
  /// Reloads the plugin configuration on SIGHUP, as daemons do.
  private static func reloadOnHangUp(_ plugins: PluginSet) -> any DispatchSourceSignal {
    signal(SIGHUP, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: SIGHUP)
    source.setEventHandler {
      Task { _ = try? await plugins.reload() }
    }
    source.resume()
    return source
  }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
extension PluginStart: ExpressibleByArgument {}
