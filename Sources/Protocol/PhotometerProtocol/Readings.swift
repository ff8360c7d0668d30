/// Where a reading's value came from.
public enum ReadingSource: String, Hashable, Sendable, CaseIterable {
  case ocr, manual
  /// An OCR reading the user corrected.
  case corrected

  var wireValue: UInt32 { UInt32(Self.allCases.firstIndex(of: self)! + 1) }

  init?(wireValue: UInt32) {
    guard wireValue >= 1, Int(wireValue) <= Self.allCases.count else { return nil }
    self = Self.allCases[Int(wireValue) - 1]
  }
}

/// A reading as stored.
public struct StoredReading: Hashable, Sendable {
  public var id: Int64
  public var meter: String
  /// Exactly as read, e.g. `01234.567`.
  public var value: String
  public var numeric: Double
  public var unit: String
  /// Unix times in milliseconds.
  public var takenAt: Int64
  public var recordedAt: Int64
  public var source: ReadingSource
  public var confidence: Double?
  public var verified: Bool
  public var crop: [UInt8]
  /// For OCR readings: each engine's answer.
  public var engines: [EngineAnswer]
  /// The value in the unit a request asked for, when that differs from ``unit``; else empty.
  public var displayValue = ""
  public var displayUnit = ""
  /// For OCR readings: the value the vote gave, kept when the user corrects ``value``.
  public var votedValue = ""
  /// A typed value the counting checks refused, stored anyway with ``AddReadingRequest/force``.
  public var forced = false

  public init(
    id: Int64,
    meter: String,
    value: String,
    numeric: Double,
    unit: String,
    takenAt: Int64,
    recordedAt: Int64,
    source: ReadingSource,
    confidence: Double? = nil,
    verified: Bool = false,
    crop: [UInt8] = [],
    engines: [EngineAnswer] = []
  ) {
    self.id = id
    self.meter = meter
    self.value = value
    self.numeric = numeric
    self.unit = unit
    self.takenAt = takenAt
    self.recordedAt = recordedAt
    self.source = source
    self.confidence = confidence
    self.verified = verified
    self.crop = crop
    self.engines = engines
  }
}

/// Stores a reading.
public struct AddReadingRequest: Hashable, Sendable {
  public var meter: String
  public var value: String
  /// The unit ``value`` is in; empty: the meter's unit.
  public var unit: String
  /// Unix time in milliseconds; `nil`: the photo's EXIF time, else now.
  public var takenAt: Int64?
  public var photo: Image?
  public var source: ReadingSource
  public var confidence: Double?
  public var engines: [EngineAnswer]
  public var crop: [UInt8]
  /// Store a manual reading even when a counting meter could not show it (below the reading
  /// before it, above the one after it, or faster than its maximum rate).
  public var force: Bool

  public init(
    meter: String,
    value: String,
    unit: String = "",
    takenAt: Int64? = nil,
    photo: Image? = nil,
    source: ReadingSource = .manual,
    confidence: Double? = nil,
    engines: [EngineAnswer] = [],
    crop: [UInt8] = [],
    force: Bool = false
  ) {
    self.meter = meter
    self.value = value
    self.unit = unit
    self.takenAt = takenAt
    self.photo = photo
    self.source = source
    self.confidence = confidence
    self.engines = engines
    self.crop = crop
    self.force = force
  }
}

/// A meter's readings between two times (Unix milliseconds, `nil`: open), in ``unit`` (empty:
/// as stored).
public struct ListReadingsRequest: Hashable, Sendable {
  public var meter: String
  public var from: Int64?
  public var to: Int64?
  public var unit: String
  /// Whether each reading carries its crop. Off by default: a history of crops can be many
  /// megabytes, and most lists (charts, tables, A/B scores) do not show them.
  public var withCrops: Bool
  /// At most this many readings, the latest ones (still oldest first); `nil`: all.
  public var limit: Int?

  public init(
    meter: String, from: Int64? = nil, to: Int64? = nil, unit: String = "", withCrops: Bool = false,
    limit: Int? = nil
  ) {
    self.meter = meter
    self.from = from
    self.to = to
    self.unit = unit
    self.withCrops = withCrops
    self.limit = limit
  }
}
