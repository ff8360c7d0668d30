import ArgumentParser
import Foundation
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

  /// Parses and runs the command. A usage error (an unknown flag, `--roi 1,2,3`, `--at
  /// yesterday`) is bad input like any other and exits with status 1, as the discussion says,
  /// not with ArgumentParser's 64; help and version exit 0 as usual.
  static func main() async {
    do {
      var command = try parseAsRoot()
      if var command = command as? any AsyncParsableCommand {
        try await command.run()
      } else {
        try command.run()
      }
    } catch {
      guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
      FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
      Foundation.exit(1)
    }
  }
}
