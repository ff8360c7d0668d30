import ArgumentParser
import Foundation

/// A time on the command line: ISO 8601 (`2026-11-20T07:45:00Z`, `2026-11-20T07:45+01:00`),
/// or a local date and time (`2026-11-20 07:45`, `2026-11-20`).
struct TimeArgument: ExpressibleByArgument {
  /// The formats, for the options' help.
  static let formats = "2026-11-20, 2026-11-20 07:45 (local time) or ISO 8601 such as 2026-11-20T07:45:00Z"

  /// Unix time in milliseconds.
  var milliseconds: Int64
  /// Whether only a date was given (then the time is that day's first millisecond).
  var isDateOnly: Bool

  init?(argument: String) {
    guard let date = Self.parse(argument) else { return nil }
    milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
    isDateOnly = !argument.contains(":")
  }

  /// As the end of a span: a date alone means the whole of that day, up to its last millisecond.
  var endMilliseconds: Int64 {
    guard isDateOnly else { return milliseconds }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = .current
    let start = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    let next = calendar.date(byAdding: .day, value: 1, to: start) ?? start.addingTimeInterval(86_400)
    return Int64((next.timeIntervalSince1970 * 1000).rounded()) - 1
  }

  private static func parse(_ text: String) -> Date? {
    let iso = ISO8601DateFormatter()
    for options: ISO8601DateFormatter.Options in [
      [.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime],
    ] {
      iso.formatOptions = options
      if let date = iso.date(from: text) { return date }
    }
    let local = DateFormatter()
    local.locale = Locale(identifier: "en_US_POSIX")
    local.timeZone = .current
    for format in [
      "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd",
    ] {
      local.dateFormat = format
      if let date = local.date(from: text) { return date }
    }
    return nil
  }

  static var defaultValueDescription: String { "ISO 8601 time or local YYYY-MM-DD[ HH:MM]" }
}

/// Unix milliseconds as a local time for tables, `2026-11-20 07:45:12`.
func localTime(_ milliseconds: Int64) -> String {
  let formatter = DateFormatter()
  formatter.locale = Locale(identifier: "en_US_POSIX")
  formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
  return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
}

/// Unix milliseconds as ISO 8601 with the UTC offset, for JSON and CSV.
func isoTime(_ milliseconds: Int64) -> String {
  let formatter = ISO8601DateFormatter()
  formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
  formatter.timeZone = .current
  return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
}
