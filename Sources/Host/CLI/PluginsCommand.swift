import ArgumentParser
import PhotometerProtocol

struct PluginsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "plugins",
    abstract: "List the configured plugins with their state, pid, restarts, requests and median latency."
  )

  @OptionGroup var global: GlobalOptions

  @Flag(help: "One JSON object per plugin, one per line.")
  var json = false

  func run() async throws {
    try await reportingFailures {
      let client = try await global.connect()
      let plugins = try await client.plugins()
      await client.close()
      if json {
        plugins.forEach { print($0.json.rendered) }
      } else {
        printTable(
          header: [
            "NAME", "STATE", "PID", "ROLES", "MODE", "VERSION", "RESTARTS", "REQUESTS", "ERRORS", "MEDIAN MS", "REASON",
          ],
          rows: plugins.map(\.row))
      }
    }
  }
}

extension PluginStatus {
  /// The status as a JSON line.
  fileprivate var json: JSONValue {
    .object([
      ("plugin", .string(name)), ("state", .string(state)), ("pid", pid > 0 ? .number(pid) : .null),
      ("roles", .array(roles.map { .string($0.description) })), ("mode", .string(mode)),
      ("version", .string(version)), ("restarts", .number(restarts)), ("requests", .number(requests)),
      ("errors", .number(errors)), ("median_ms", .number(medianMilliseconds.rounded(toPlaces: 2))),
      ("reason", .optional(reason)),
    ])
  }
}

extension PluginStatus {
  fileprivate var row: [String] {
    [
      name, state, pid > 0 ? "\(pid)" : "-", roles.map(\.description).joined(separator: ","), mode,
      version.isEmpty ? "-" : version, "\(restarts)", "\(requests)", "\(errors)",
      String(format: "%.2f", medianMilliseconds), reason,
    ]
  }
}
