import ArgumentParser
import PhotometerProtocol

/// `photometer`: the command-line client. It starts `photometer-host` and speaks the protocol to
/// it; every command is a request like any other client's.
@main
struct Photometer: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "photometer",
    abstract: "Recognise meter and device readings in photos.",
    discussion: """
      Exit status: 0 on success, 1 on bad input (with a one-line reason on standard error), \
      2 on an internal failure.
      """,
    version: PhotometerVersion.current,
    subcommands: [
      MeterCommand.self, ReadingCommand.self, ReadingsCommand.self, StatsCommand.self, ChartCommand.self,
      ExportCommand.self, ImportCommand.self, ReadCommand.self, IdentifyCommand.self, PluginsCommand.self,
      ABCommand.self, BenchCommand.self, ReplayCommand.self, PingCommand.self,
    ]
  )
}
