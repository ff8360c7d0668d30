/// How readings are grouped for statistics.
public enum StatsPeriod: String, Hashable, Sendable, CaseIterable {
  case day, week, month

  var wireValue: UInt32 { UInt32(Self.allCases.firstIndex(of: self)! + 1) }

  init(wireValue: UInt32) {
    self = wireValue >= 1 && Int(wireValue) <= Self.allCases.count ? Self.allCases[Int(wireValue) - 1] : .day
  }
}

/// A meter's readings summed up per period (or a chart of them): which meter, when, in which unit.
public struct StatsRequest: Hashable, Sendable {
  public var meter: String
  public var period: StatsPeriod
  /// Unix milliseconds; `nil`: open.
  public var from: Int64?
  public var to: Int64?
  /// Empty: the meter's unit.
  public var unit: String
  /// An IANA time zone; empty: the host's.
  public var timeZone: String

  public init(
    meter: String, period: StatsPeriod = .day, from: Int64? = nil, to: Int64? = nil, unit: String = "",
    timeZone: String = ""
  ) {
    self.meter = meter
    self.period = period
    self.from = from
    self.to = to
    self.unit = unit
    self.timeZone = timeZone
  }
}

/// One period's figures.
public struct StatsRow: Hashable, Sendable {
  public var start: Int64
  public var end: Int64
  /// E.g. `2026-11-20`, `2026-W47`, `2026-11`.
  public var label: String
  public var count: Int
  /// Counting meters: how much the meter advanced in the period.
  public var consumption: Double
  /// Other meters: the readings' minimum, maximum and mean.
  public var min: Double
  public var max: Double
  public var mean: Double

  public init(
    start: Int64, end: Int64, label: String, count: Int, consumption: Double = 0, min: Double = 0, max: Double = 0,
    mean: Double = 0
  ) {
    self.start = start
    self.end = end
    self.label = label
    self.count = count
    self.consumption = consumption
    self.min = min
    self.max = max
    self.mean = mean
  }
}

/// A meter's statistics.
public struct Stats: Hashable, Sendable {
  public var meter: String
  public var unit: String
  /// Whether ``StatsRow/consumption`` (a counting meter) or min, max and mean apply.
  public var counting: Bool
  public var rows: [StatsRow]

  public init(meter: String, unit: String, counting: Bool, rows: [StatsRow]) {
    self.meter = meter
    self.unit = unit
    self.counting = counting
    self.rows = rows
  }
}

/// A chart's size in pixels.
public struct ChartSize: Hashable, Sendable {
  public var width: Int
  public var height: Int

  public init(width: Int = 800, height: Int = 400) {
    self.width = width
    self.height = height
  }
}

/// What a chart shows.
public enum ChartContent: Hashable, Sendable, CaseIterable {
  /// A counting meter's consumption per period, any other meter's readings.
  case automatic
  /// The readings as a line over time.
  case readings
  /// Consumption per period as columns (a counting meter only).
  case consumption

  var wireValue: UInt32 { UInt32(Self.allCases.firstIndex(of: self)!) }

  init(wireValue: UInt32) {
    self = Int(wireValue) < Self.allCases.count ? Self.allCases[Int(wireValue)] : .automatic
  }
}
