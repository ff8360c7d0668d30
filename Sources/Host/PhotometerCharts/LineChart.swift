import Foundation

/// A line chart of values over time as a standalone SVG document: axes with round ticks, dates
/// on the time axis in the given time zone, the unit on the value axis.
public struct LineChart: Sendable {
  /// A value at a time (Unix milliseconds).
  public struct Point: Hashable, Sendable {
    public var time: Int64
    public var value: Double

    public init(time: Int64, value: Double) {
      self.time = time
      self.value = value
    }
  }

  public var title: String
  public var unit: String
  public var points: [Point]
  public var timeZone: TimeZone
  public var width: Int
  public var height: Int

  public init(title: String, unit: String, points: [Point], timeZone: TimeZone, width: Int = 800, height: Int = 400) {
    self.title = title
    self.unit = unit
    self.points = points.sorted { $0.time < $1.time }
    self.timeZone = timeZone
    self.width = max(width, 200)
    self.height = max(height, 150)
  }

  private let left = 72.0, right = 24.0, top = 44.0, bottom = 48.0

  /// The SVG text.
  public var svg: String {
    var parts = [
      ##"<svg xmlns="http://www.w3.org/2000/svg" width="\##(width)" height="\##(height)" viewBox="0 0 \##(width) \##(height)" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">"##,
      ##"<rect width="100%" height="100%" fill="#ffffff"/>"##,
      ##"<text x="\##(left)" y="26" font-size="16" font-weight="bold" fill="#222">\##(escapeXML(title))</text>"##,
    ]
    guard let first = points.first, let last = points.last else {
      parts.append(
        ##"<text x="\##(Double(width) / 2)" y="\##(Double(height) / 2)" text-anchor="middle" fill="#777">No readings</text>"##
      )
      return (parts + ["</svg>"]).joined(separator: "\n") + "\n"
    }
    let span = (first.time == last.time) ? (first.time - 43_200_000, last.time + 43_200_000) : (first.time, last.time)
    let values = points.map(\.value)
    let (low, high, step) = Self.niceRange(values.min()!, values.max()!)
    let plot = (x: left, y: top, width: Double(width) - left - right, height: Double(height) - top - bottom)
    let x = { (time: Int64) in plot.x + plot.width * Double(time - span.0) / Double(span.1 - span.0) }
    let y = { (value: Double) in plot.y + plot.height * (1 - (value - low) / (high - low)) }

    for tick in stride(from: low, through: high + step / 2, by: step) {
      parts.append(
        ##"<line x1="\##(fmt(plot.x))" y1="\##(fmt(y(tick)))" x2="\##(fmt(plot.x + plot.width))" y2="\##(fmt(y(tick)))" stroke="#e4e4e4"/>"##
      )
      parts.append(
        ##"<text x="\##(fmt(plot.x - 8))" y="\##(fmt(y(tick) + 4))" text-anchor="end" fill="#444">\##(Self.number(tick, step: step))</text>"##
      )
    }
    for (time, label) in timeTicks(from: span.0, to: span.1) {
      parts.append(
        ##"<line x1="\##(fmt(x(time)))" y1="\##(fmt(plot.y))" x2="\##(fmt(x(time)))" y2="\##(fmt(plot.y + plot.height))" stroke="#f0f0f0"/>"##
      )
      parts.append(
        ##"<text x="\##(fmt(x(time)))" y="\##(fmt(plot.y + plot.height + 18))" text-anchor="middle" fill="#444">\##(escapeXML(label))</text>"##
      )
    }
    parts.append(
      ##"<line x1="\##(fmt(plot.x))" y1="\##(fmt(plot.y + plot.height))" x2="\##(fmt(plot.x + plot.width))" y2="\##(fmt(plot.y + plot.height))" stroke="#888"/>"##
    )
    parts.append(
      ##"<line x1="\##(fmt(plot.x))" y1="\##(fmt(plot.y))" x2="\##(fmt(plot.x))" y2="\##(fmt(plot.y + plot.height))" stroke="#888"/>"##
    )
    parts.append(
      ##"<text transform="translate(16 \##(fmt(plot.y + plot.height / 2))) rotate(-90)" text-anchor="middle" fill="#444">\##(escapeXML(unit))</text>"##
    )
    let path = points.map { "\(fmt(x($0.time))),\(fmt(y($0.value)))" }.joined(separator: " ")
    parts.append(
      ##"<polyline points="\##(path)" fill="none" stroke="#1f6feb" stroke-width="2" stroke-linejoin="round"/>"##)
    if points.count <= 200 {
      for point in points {
        parts.append(##"<circle cx="\##(fmt(x(point.time)))" cy="\##(fmt(y(point.value)))" r="3" fill="#1f6feb"/>"##)
      }
    }
    return (parts + ["</svg>"]).joined(separator: "\n") + "\n"
  }

  /// Bounds and a step of 1, 2 or 5 x 10^n that give about five ticks around `low...high`.
  static func niceRange(_ low: Double, _ high: Double) -> (Double, Double, Double) {
    let spread = high - low
    let raw = (spread > 0 ? spread : max(abs(high), 1)) / 5
    let magnitude = pow(10, floor(log10(raw)))
    let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? 10 * magnitude
    let bottom = floor(low / step) * step
    var top = ceil(high / step) * step
    if top == bottom { top += step }
    return (bottom, top, step)
  }

  static func number(_ value: Double, step: Double) -> String {
    let decimals = max(0, Int(-floor(log10(step))))
    return String(format: "%.\(decimals)f", value)
  }

  /// Ticks at round times (hours, days, weeks, months or years), at most about eight.
  private func timeTicks(from start: Int64, to end: Int64) -> [(Int64, String)] {
    var calendar = Calendar(identifier: .iso8601)
    calendar.timeZone = timeZone
    let hours = Double(end - start) / 3_600_000
    let (component, count, format): (Calendar.Component, Int, String) =
      switch hours {
      case ..<12: (.hour, 1, "HH:mm")
      case ..<72: (.hour, 6, "MMM d HH:mm")
      case ..<(24 * 10): (.day, 1, "MMM d")
      case ..<(24 * 60): (.day, 7, "MMM d")
      case ..<(24 * 400): (.month, 1, "MMM yyyy")
      case ..<(24 * 1200): (.month, 3, "MMM yyyy")
      default: (.year, Self.yearStep(hours / (24 * 365.25)), "yyyy")
      }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = timeZone
    formatter.dateFormat = format
    let startDate = Date(timeIntervalSince1970: Double(start) / 1000)
    var tick = calendar.dateInterval(of: component == .hour ? .day : component, for: startDate)?.start ?? startDate
    if component == .year, count > 1 {
      // Years on multiples of the step (1900, 1950, 2000), not on the first reading's year.
      let year = calendar.component(.year, from: tick)
      let offset = (count - year % count) % count
      tick = calendar.date(byAdding: .year, value: offset, to: tick) ?? tick
    }
    var ticks: [(Int64, String)] = []
    while ticks.count < 40 {
      let milliseconds = Int64(tick.timeIntervalSince1970 * 1000)
      if milliseconds > end { break }
      if milliseconds >= start { ticks.append((milliseconds, formatter.string(from: tick))) }
      guard let next = calendar.date(byAdding: component, value: count, to: tick) else { break }
      tick = next
    }
    let stride = max(1, Int((Double(ticks.count) / 8).rounded(.up)))
    return ticks.enumerated().filter { $0.offset % stride == 0 }.map(\.element)
  }

  /// Years between ticks for a span of `years`: 1, 2 or 5 times a power of ten, about eight
  /// ticks (the ticks stop at 40, so a step of one year labelled only a century's first 40).
  static func yearStep(_ years: Double) -> Int {
    var power = 1
    while true {
      for factor in [1, 2, 5] where Double(factor * power) * 8 >= years {
        return factor * power
      }
      power *= 10
    }
  }

  private func fmt(_ value: Double) -> String {
    String(format: "%.1f", value)
  }

}
