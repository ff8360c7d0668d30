/// What a meter measures; it sets the canonical unit and the units a client may ask for.
public enum MeterKind: String, Hashable, Sendable, CaseIterable {
  case water, gas, electricity, heat, glucose, thermometer
  case bloodPressure = "blood-pressure"
  case other

  /// The unit a meter of this kind is taken in unless its registration says otherwise.
  public var canonicalUnit: String {
    switch self {
    case .water, .gas: "m3"
    case .electricity, .heat: "kWh"
    case .glucose: "mg/dL"
    case .thermometer: "C"
    case .bloodPressure: "mmHg"
    case .other: ""
    }
  }

  /// Whether a meter of this kind counts up (a cumulative counter) unless told otherwise.
  public var countsUpByDefault: Bool {
    [.water, .gas, .electricity, .heat].contains(self)
  }

  /// The physical range of its values in its canonical unit, for medical kinds.
  public var physicalRange: ClosedRange<Double>? {
    switch self {
    case .glucose: 20...600
    case .thermometer: 30...45
    default: nil
    }
  }

  var wireValue: UInt32 {
    UInt32(Self.allCases.firstIndex(of: self)! + 1)
  }

  init?(wireValue: UInt32) {
    guard wireValue >= 1, Int(wireValue) <= Self.allCases.count else { return nil }
    self = Self.allCases[Int(wireValue) - 1]
  }
}

/// A meter's reference photo as stored; ``image`` only when a request asked for the bytes.
public struct ReferencePhoto: Hashable, Sendable {
  public var sha256: String
  public var width: Int
  public var height: Int
  public var bytes: Int
  public var image: Image?

  public init(sha256: String, width: Int, height: Int, bytes: Int, image: Image? = nil) {
    self.sha256 = sha256
    self.width = width
    self.height = height
    self.bytes = bytes
    self.image = image
  }
}

/// A registered meter.
public struct Meter: Hashable, Sendable {
  public var id: Int64
  /// Unique, compared without regard to case.
  public var name: String
  public var kind: MeterKind
  /// The unit its readings are taken in.
  public var unit: String
  /// Unix time in milliseconds.
  public var createdAt: Int64
  /// Where the digits are in the reference photos.
  public var roi: Rect?
  /// The digits the display shows, 0 if unknown.
  public var digits: Int
  public var decimals: Int
  /// A counting meter's value never goes down.
  public var countsUp: Bool
  /// The most it can advance per hour; `nil`: no limit.
  public var maxRatePerHour: Double?
  /// The valid range of its values.
  public var range: ClosedRange<Double>?
  public var notes: String
  public var references: [ReferencePhoto]
  public var readingCount: Int
  /// Pointer dials in the reference photos, coarsest first: each a decimal place below the last
  /// digit's (a meter with 0 decimals: 0.1, 0.01, ...).
  public var dials: [Dial]
  /// A counter whose last wheel turns continuously: its roll is read as one more decimal (4.7 for
  /// a wheel seven tenths of the way from 4 to 5). Ignored when the meter has ``dials``.
  public var extended: Bool

  public init(
    id: Int64 = 0,
    name: String,
    kind: MeterKind,
    unit: String = "",
    createdAt: Int64 = 0,
    roi: Rect? = nil,
    digits: Int = 0,
    decimals: Int = 0,
    countsUp: Bool = false,
    maxRatePerHour: Double? = nil,
    range: ClosedRange<Double>? = nil,
    notes: String = "",
    references: [ReferencePhoto] = [],
    readingCount: Int = 0,
    dials: [Dial] = [],
    extended: Bool = false
  ) {
    self.id = id
    self.name = name
    self.kind = kind
    self.unit = unit
    self.createdAt = createdAt
    self.roi = roi
    self.digits = digits
    self.decimals = decimals
    self.countsUp = countsUp
    self.maxRatePerHour = maxRatePerHour
    self.range = range
    self.notes = notes
    self.references = references
    self.readingCount = readingCount
    self.dials = dials
    self.extended = extended
  }
}

/// Registers a meter with its reference photos.
public struct AddMeterRequest: Hashable, Sendable {
  public var meter: Meter
  public var references: [Image]

  public init(meter: Meter, references: [Image]) {
    self.meter = meter
    self.references = references
  }
}

/// Changes the ``fields`` of a meter to their values in ``changes``, and adds reference photos.
public struct EditMeterRequest: Hashable, Sendable {
  /// The fields ``changes`` sets.
  public enum Field: String, Hashable, Sendable, CaseIterable {
    case name, kind, unit, roi, digits, decimals
    case countsUp = "counts_up"
    case maxRatePerHour = "max_rate_per_hour"
    case range, notes, dials, extended
  }

  public var name: String
  public var changes: Meter
  public var fields: [String]
  public var addReferences: [Image]

  public init(name: String, changes: Meter, fields: [String], addReferences: [Image] = []) {
    self.name = name
    self.changes = changes
    self.fields = fields
    self.addReferences = addReferences
  }
}
