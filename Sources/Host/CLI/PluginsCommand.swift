import ArgumentParser
import PhotometerProtocol

struct PluginsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "plugins",
    abstract: "List the configured plugins: state, pids, restarts, requests, errors, timeouts, latency p50 and p95."
  )

  @OptionGroup var global: GlobalOptions

  @Flag(help: "One JSON object per plugin, one per line.")
  var json = false

  func run() async throws {
    try await reportingFailures {
      let plugins = try await global.request(.listPlugins)
      if json {
        plugins.forEach { print($0.json.rendered) }
      } else {
        printTable(
          header: [
            "NAME", "STATE", "PIDS", "ROLES", "MODE", "VERSION", "RESTARTS", "REQUESTS", "ERRORS", "TIMEOUTS",
            "QUEUED", "P50 MS", "P95 MS", "REASON",
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
      ("plugin", .string(name)), ("state", .string(state.rawValue)), ("pid", pids.first.map { .number($0) } ?? .null),
      ("pids", .array(pids.map { .number($0) })), ("instances", .number(instances)),
      ("roles", .array(roles.map { .string($0.description) })), ("mode", .string(mode)),
      ("version", .string(version)), ("restarts", .number(restarts)), ("requests", .number(requests)),
      ("errors", .number(errors)), ("timeouts", .number(timeouts)), ("queued", .number(queued)),
      ("median_ms", .number(medianMilliseconds.rounded(toPlaces: 2))),
      ("p95_ms", .number(p95Milliseconds.rounded(toPlaces: 2))), ("reason", .optional(reason)),
    ])
  }

  fileprivate var row: [String] {
    [
      name, state.rawValue, pids.isEmpty ? "-" : pids.map(String.init).joined(separator: ","),
      roles.map(\.description).joined(separator: ","), mode, version.isEmpty ? "-" : version, "\(restarts)",
      "\(requests)", "\(errors)", "\(timeouts)", "\(queued)", String(format: "%.2f", medianMilliseconds),
      String(format: "%.2f", p95Milliseconds), reason,
    ]
  }
}
