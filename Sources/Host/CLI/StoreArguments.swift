import ArgumentParser
import Foundation
import PhotometerProtocol

/// A meter kind on the command line.
struct MeterKindArgument: ExpressibleByArgument {
  var kind: MeterKind

  init?(argument: String) {
    guard let kind = MeterKind(rawValue: argument.lowercased()) else { return nil }
    self.kind = kind
  }

  static var allValueStrings: [String] { MeterKind.allCases.map(\.rawValue) }
}

/// `MIN,MAX` on the command line.
struct RangeArgument: ExpressibleByArgument {
  var range: ClosedRange<Double>

  init?(argument: String) {
    let parts = argument.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    guard parts.count == 2, parts[0] <= parts[1] else { return nil }
    range = parts[0]...parts[1]
  }
}

extension Meter {
  /// One line: name, kind and unit.
  var summary: String {
    "meter \(name) (\(kind.rawValue)\(unit.isEmpty ? "" : ", \(unit)"), \(references.count) reference photo(s))"
  }

  /// Every setting, one per line.
  var details: String {
    let region: String = roi.map { "\($0)" } ?? "whole photo"
    let size: String = digits > 0 ? "\(digits), \(decimals) decimal(s)" : "unknown"
    let rate: String = maxRatePerHour.map { "\($0) \(unit)/h" } ?? "none"
    let valid: String = range.map { "\($0.lowerBound)...\($0.upperBound)" } ?? "none"
    let photos: [String] = references.map { "\($0.width)x\($0.height) sha256:\($0.sha256.prefix(12))" }
    let rows: [(String, String)] = [
      ("name", name), ("kind", kind.rawValue), ("unit", unit.isEmpty ? "-" : unit), ("created", localTime(createdAt)),
      ("region", region), ("digits", size), ("counts up", countsUp ? "yes" : "no"), ("max rate", rate),
      ("range", valid), ("dials", dials.isEmpty ? "none" : dials.map(\.text).joined(separator: " ")),
      ("extended", extended ? "yes: the last wheel's roll is a decimal more" : "no"),
      ("photos", photos.joined(separator: "; ")), ("readings", "\(readingCount)"), ("notes", notes),
    ]
    return rows.map { label, value in label.padding(toLength: 10, withPad: " ", startingAt: 0) + " " + value }
      .joined(separator: "\n")
  }

  var json: JSONValue {
    .object([
      ("name", .string(name)), ("kind", .string(kind.rawValue)), ("unit", .string(unit)),
      ("created_at", .string(isoTime(createdAt))),
      ("roi", roi.map(JSONValue.rect) ?? .null),
      ("digits", .number(digits)), ("decimals", .number(decimals)), ("counts_up", .bool(countsUp)),
      ("max_rate_per_hour", maxRatePerHour.map(JSONValue.number) ?? .null),
      ("range", range.map { .array([.number($0.lowerBound), .number($0.upperBound)]) } ?? .null),
      ("notes", .string(notes)),
      ("dials", .array(dials.map { .string($0.text) })), ("extended", .bool(extended)),
      (
        "references",
        .array(
          references.map {
            .object([("sha256", .string($0.sha256)), ("width", .number($0.width)), ("height", .number($0.height))])
          })
      ),
      ("readings", .number(readingCount)),
    ])
  }
}

extension StoredReading {
  /// The value and unit shown: converted when the request asked for another unit.
  var shown: (value: String, unit: String) {
    displayValue.isEmpty ? (value, unit) : (displayValue, displayUnit)
  }

  var json: JSONValue {
    .object([
      ("id", .number(id)), ("meter", .string(meter)), ("value", .string(shown.value)), ("unit", .string(shown.unit)),
      ("as_read", .string(value)), ("read_unit", .string(unit)), ("taken_at", .string(isoTime(takenAt))),
      ("recorded_at", .string(isoTime(recordedAt))), ("source", .string(source.rawValue)),
      ("confidence", confidence.map(JSONValue.number) ?? .null), ("verified", .bool(verified)),
      ("forced", .bool(forced)),
      (
        "engines",
        .array(
          engines.map {
            .object([
              ("engine", .string($0.plugin)), ("version", .string($0.version)), ("text", .optional($0.value?.text)),
              ("confidence", $0.value.map { .number($0.confidence) } ?? .null), ("ms", .number($0.milliseconds)),
            ])
          })
      ),
    ])
  }
}

/// The meter, time span and unit that `readings`, `stats` and `chart` take.
struct MeterSpan: ParsableArguments {
  @Argument(help: "The meter's name.") var meter: String
  @Option(help: "From this time on: \(TimeArgument.formats).") var from: TimeArgument?
  @Option(help: "Up to this time (a date alone: to the end of that day): \(TimeArgument.formats).")
  var to: TimeArgument?
  @Option(help: "The unit of the values shown (e.g. L, mmol/L, F).") var unit: String?

  /// The request for these settings, periods cut in this machine's time zone.
  func request(period: StatsPeriod = .day) -> StatsRequest {
    StatsRequest(
      meter: meter, period: period, from: from?.milliseconds, to: to?.endMilliseconds, unit: unit ?? "",
      timeZone: TimeZone.current.identifier)
  }
}
