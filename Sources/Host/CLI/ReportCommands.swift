import ArgumentParser
import Foundation
import PhotometerClient
import PhotometerProtocol

struct StatsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "stats",
    abstract: "Consumption per period for a counting meter; minimum, maximum and mean for others.")

  @OptionGroup var global: GlobalOptions
  @OptionGroup var span: MeterSpan
  @Option(help: "day, week or month.") var by: StatsPeriodArgument = StatsPeriodArgument(period: .day)
  @Flag(help: "One JSON object per period, one per line.") var json = false

  func run() async throws {
    try await reportingFailures {
      let stats = try await global.request(.getStats(span.request(period: by.period)))
      if json {
        for row in stats.rows {
          var members: [(String, JSONValue)] = [
            ("period", .string(row.label)), ("start", .string(isoTime(row.start))), ("end", .string(isoTime(row.end))),
            ("readings", .number(row.count)), ("unit", .string(stats.unit)),
          ]
          members +=
            stats.counting
            ? [("consumption", .number(row.consumption))]
            : [("min", .number(row.min)), ("max", .number(row.max)), ("mean", .number(row.mean))]
          print(JSONValue.object(members).rendered)
        }
      } else if stats.counting {
        printTable(
          header: ["PERIOD", "READINGS", "CONSUMPTION (\(stats.unit))"],
          rows: stats.rows.map { [$0.label, "\($0.count)", String(format: "%.3f", $0.consumption)] })
      } else {
        printTable(
          header: ["PERIOD", "READINGS", "MIN", "MAX", "MEAN (\(stats.unit))"],
          rows: stats.rows.map {
            [
              $0.label, "\($0.count)", String(format: "%g", $0.min), String(format: "%g", $0.max),
              String(format: "%.2f", $0.mean),
            ]
          })
      }
    }
  }
}

struct StatsPeriodArgument: ExpressibleByArgument {
  var period: StatsPeriod

  init(period: StatsPeriod) {
    self.period = period
  }

  init?(argument: String) {
    guard let period = StatsPeriod(rawValue: argument) else { return nil }
    self.period = period
  }

  var defaultValueDescription: String { period.rawValue }
  static var allValueStrings: [String] { StatsPeriod.allCases.map(\.rawValue) }
}

struct ExportCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "export", abstract: "Write every meter (photos included) and reading as CSV.")

  @OptionGroup var global: GlobalOptions
  @Option(name: .shortAndLong, help: "The file to write (default: standard output).") var output: String?

  func run() async throws {
    try await reportingFailures {
      let export = try await global.request(.exportData)
      try write(export.csv, to: output)
      if output != nil {
        print("Exported \(export.meters) meter(s) and \(export.readings) reading(s)")
      }
    }
  }
}

struct ImportCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "import", abstract: "Load a CSV that `photometer export` wrote; all or nothing.")

  @OptionGroup var global: GlobalOptions
  @Argument(help: "The CSV file.") var file: String

  func run() async throws {
    try await reportingFailures {
      guard let data = FileManager.default.contents(atPath: file) else {
        throw CommandFailure.badInput("cannot read \(file)")
      }
      let imported = try await global.request(.importData(csv: String(decoding: data, as: UTF8.self)))
      print("Imported \(imported.meters) meter(s) and \(imported.readings) reading(s)")
    }
  }
}

struct ChartCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "chart",
    abstract: "Draw a counting meter's consumption per period, or a meter's readings over time, as SVG.")

  @OptionGroup var global: GlobalOptions
  @OptionGroup var span: MeterSpan
  @Option(help: "The period of a consumption chart: day, week or month.")
  var by: StatsPeriodArgument = StatsPeriodArgument(period: .day)
  @Flag(help: "Draw the readings themselves as a line, also for a counting meter.") var values = false
  @Option(name: .shortAndLong, help: "The SVG file to write.") var output: String

  func run() async throws {
    try await reportingFailures {
      let svg = try await global.request(
        .renderChart(span.request(period: by.period), size: ChartSize(), content: values ? .readings : .automatic))
      try write(svg, to: output)
      print("Wrote \(output)")
    }
  }
}

/// Writes `text` to the file at `path`, or to standard output when there is none.
private func write(_ text: String, to path: String?) throws {
  guard let path else {
    print(text, terminator: "")
    return
  }
  try writeFile(Array(text.utf8), to: path)
}
