import Foundation
import GRDB
import PhotometerProtocol

extension MeterStore {
  /// The most periods one request may ask for: ten years of days.
  public static let maxPeriods = 3660

  /// A meter's readings per day, week (from Monday) or month in the request's time zone: for a
  /// counting meter, how much it advanced (interpolated linearly between readings at the
  /// periods' edges); for others, the readings' minimum, maximum and mean.
  ///
  /// The cost is bounded by the readings, not by the calendar: the periods run over the span of
  /// the readings within the request's `from` and `to` only, periods without readings are
  /// skipped for meters that do not count up, and past ``maxPeriods`` periods the request is
  /// refused. Readings at times outside ``readingTimes`` (which older versions stored) are left
  /// out.
  public func stats(_ request: StatsRequest) async throws(StoreError) -> Stats {
    let (meter, unit, stored) = try await series(request.meter, unit: request.unit)
    let points = stored.filter { Self.readingTimes.contains($0.time) }
    let calendar = try Self.calendar(request.timeZone)
    let empty = Stats(meter: meter.name, unit: unit, counting: meter.countsUp, rows: [])
    guard let first = points.first, let last = points.last else { return empty }
    // Within the readings' span, so within readingTimes: `to + 1` cannot overflow.
    let from = max(request.from ?? first.time, first.time)
    let to = min(request.to ?? last.time, last.time)
    guard from <= to else { return empty }
    let component: Calendar.Component =
      switch request.period {
      case .day: .day
      case .week: .weekOfYear
      case .month: .month
      }
    func periodStart(_ time: Int64) throws(StoreError) -> Date {
      guard let interval = calendar.dateInterval(of: component, for: Self.date(time)) else {
        throw .invalid("the calendar has no period for \(Self.iso8601(time))")
      }
      return interval.start
    }
    var rows: [StatsRow] = []
    var periods = 0
    var start = try periodStart(from)
    while Self.milliseconds(start) <= to {
      periods += 1
      guard periods <= Self.maxPeriods else {
        throw .invalid("that is over \(Self.maxPeriods) periods; narrow it with --from and --to, or use --by month")
      }
      guard let end = calendar.date(byAdding: component, value: 1, to: start) else {
        let after = Self.label(start, period: request.period, calendar: calendar)
        throw .invalid("the calendar has no period after \(after)")
      }
      let (low, high) = (Self.milliseconds(start), Self.milliseconds(end))
      let label = Self.label(start, period: request.period, calendar: calendar)
      if let row = meter.countsUp
        ? Self.consumption(points, from: max(low, from), to: min(high, to + 1), label: label, period: (low, high))
        : Self.spread(
          points.filter { $0.time >= max(low, from) && $0.time < min(high, to + 1) }, label: label, period: (low, high))
      {
        rows.append(row)
      }
      start = end
      // A meter that does not count up has nothing between its readings: on to the next one's.
      if !meter.countsUp, let next = points.first(where: { $0.time >= high }), next.time > high {
        start = max(start, try periodStart(next.time))
      }
    }
    return Stats(meter: meter.name, unit: unit, counting: meter.countsUp, rows: rows)
  }

  /// A reading's time and value, in the unit asked for.
  public struct Point: Sendable {
    public var time: Int64
    public var value: Double
  }

  /// A meter, the unit of the figures, and all its readings as points in that unit, oldest first.
  public func series(_ name: String, unit requested: String) async throws(StoreError) -> (Meter, String, [Point]) {
    // One read: the meter and its readings come from the same state of the file.
    try await read { db in
      let row = try Self.row(named: name, db: db)
      let meter = try Self.meter(row, db: db, includePhotos: false)
      let unit = requested.isEmpty ? meter.unit : try Units.normalize(requested, for: meter.kind)
      let points = try ReadingRow.filter(Column("meterId") == row.id).order(Column("takenAtMs"), Column("id"))
        .fetchAll(db)
        .map { Point(time: $0.takenAtMs, value: Units.convert($0.value, from: $0.unit, to: unit, kind: meter.kind)) }
      return (meter, unit, points)
    }
  }

  /// How much a counting meter advanced between two times, within the span of its readings.
  private static func consumption(
    _ points: [Point], from: Int64, to: Int64, label: String, period: (Int64, Int64)
  ) -> StatsRow? {
    let start = max(from, points.first!.time)
    let end = min(to, points.last!.time)
    guard start < end || (start == end && points.count == 1) else { return nil }
    let count = points.filter { $0.time >= from && $0.time < to }.count
    return StatsRow(
      start: period.0, end: period.1, label: label, count: count,
      consumption: value(at: end, in: points) - value(at: start, in: points))
  }

  /// The readings' minimum, maximum and mean, or `nil` when there are none.
  private static func spread(_ points: [Point], label: String, period: (Int64, Int64)) -> StatsRow? {
    guard !points.isEmpty else { return nil }
    let values = points.map(\.value)
    return StatsRow(
      start: period.0, end: period.1, label: label, count: values.count, min: values.min()!, max: values.max()!,
      mean: values.reduce(0, +) / Double(values.count))
  }

  /// The value at `time`, interpolated linearly between the readings around it.
  static func value(at time: Int64, in points: [Point]) -> Double {
    guard let after = points.firstIndex(where: { $0.time >= time }) else { return points.last!.value }
    guard after > 0, points[after].time != time else { return points[after].value }
    let (a, b) = (points[after - 1], points[after])
    return a.value + (b.value - a.value) * Double(time - a.time) / Double(b.time - a.time)
  }

  /// An ISO 8601 calendar in the IANA time zone `timeZone`, or this host's when it is empty.
  public static func calendar(_ timeZone: String) throws(StoreError) -> Calendar {
    var calendar = Calendar(identifier: .iso8601)
    if timeZone.isEmpty {
      calendar.timeZone = .current
    } else if let zone = TimeZone(identifier: timeZone) {
      calendar.timeZone = zone
    } else {
      throw .invalid("'\(timeZone)' is not a time zone; use an IANA name such as Europe/Berlin")
    }
    return calendar
  }

  private static func label(_ start: Date, period: StatsPeriod, calendar: Calendar) -> String {
    let parts = calendar.dateComponents([.year, .month, .day, .weekOfYear, .yearForWeekOfYear], from: start)
    switch period {
    case .day: return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    case .week: return String(format: "%04d-W%02d", parts.yearForWeekOfYear!, parts.weekOfYear!)
    case .month: return String(format: "%04d-%02d", parts.year!, parts.month!)
    }
  }

  static func date(_ milliseconds: Int64) -> Date {
    Date(timeIntervalSince1970: Double(milliseconds) / 1000)
  }

  static func milliseconds(_ date: Date) -> Int64 {
    Int64((date.timeIntervalSince1970 * 1000).rounded())
  }
}
