import PhotometerProtocol

/// The last stage of a read: the voted result checked against the meter (``Plausibility``), with
/// the window's flags, the meter's decimals and a summary for people.
public struct ReadDecision: Sendable {
  /// The meter read, if known.
  public var meter: Meter?
  /// The meter's latest stored reading, what a counting meter's value is checked against.
  public var previous: StoredReading?
  /// Decimal places the value gets (the meter's, or the request's for an unknown meter).
  public var decimals: Int
  /// Unix time in milliseconds.
  public var now: Int64
  /// How many of the value's last digits a finer instrument measured (a water meter's pointer
  /// dials): an implausible value first moves the whole number before them
  /// (``Plausibility/nearestWhole(_:finerPlaces:reach:)``).
  public var finerPlaces: Int
  /// What the request said the photo shows, when no meter is known (a thermometer, a glucose
  /// meter, a blood-pressure monitor): a value such a device cannot show is flagged, as a
  /// registered meter's is against its settings.
  public var kind: MeterKind?

  public init(
    meter: Meter?, previous: StoredReading?, decimals: Int, now: Int64, finerPlaces: Int = 0, kind: MeterKind? = nil
  ) {
    self.meter = meter
    self.previous = previous
    self.decimals = decimals
    self.now = now
    self.finerPlaces = finerPlaces
    self.kind = kind
  }

  /// `voted` checked and formatted; `flags` (what made the window hard to read) join its own.
  ///
  /// An implausible value is repaired: with ``finerPlaces``, by the nearest plausible whole number
  /// (its confidence at most one over how many were plausible); else from the per-digit runners-up
  /// when one combination is plausible, the most likely such value. `repaired` says so; otherwise
  /// the value stays and `implausible` says so. A value left less sure than
  /// ``ReadVote/lowConfidence`` is flagged `low-confidence`, however it became so after the vote
  /// (a dial that disagrees with the next, a repair among several plausible values).
  public func decide(_ voted: ReadResult, flags: [ReadFlag]) -> ReadResult {
    var result = voted
    result.meter = meter?.name ?? ""
    if !result.value.isEmpty {
      if let meter {
        checkPlausibility(&result, meter: meter)
      } else if let kind, !Self.shows(result.value, kind: kind) {
        result.flags.append(.implausible)
      }
    }
    if !result.value.isEmpty && result.confidence < ReadVote.lowConfidence {
      result.flags.append(.lowConfidence)
    }
    result.flags = Self.ordered(result.flags + flags)
    result.value = Self.withDecimals(result.value, decimals: decimals)
    if !result.unrepairedValue.isEmpty {
      result.unrepairedValue = Self.withDecimals(result.unrepairedValue, decimals: decimals)
    }
    result.summary = Self.summary(result, meter: meter)
    return result
  }

  private func checkPlausibility(_ result: inout ReadResult, meter: Meter) {
    if meter.kind == .bloodPressure {
      // Three fields, each in its own range: no single-string repair applies.
      if !Plausibility.allowsBloodPressure(result.value) {
        result.flags.append(.implausible)
      }
      return
    }
    let rule = Plausibility(meter: meter, previous: previous, now: now)
    guard !rule.allows(result.value) else { return }
    let moved = rule.nearestWhole(result.value, finerPlaces: finerPlaces).map {
      (value: $0.value, likelihood: 1 / Double($0.choices))
    }
    if let repaired = moved ?? rule.repair(result.digits) {
      result.unrepairedValue = result.value
      result.value = repaired.value
      result.confidence = min(result.confidence, repaired.likelihood)
      result.flags.append(.repaired)
    } else {
      result.flags.append(.implausible)
    }
  }

  /// Whether a device of `kind` can show `value`: a blood pressure whose fields are in their
  /// ranges, the systolic above the diastolic; else a value in one of the kind's units, ranges and
  /// formats (``WindowChoice/fits(_:kind:)``; any value for a kind that says nothing of them).
  public static func shows(_ value: String, kind: MeterKind) -> Bool {
    kind == .bloodPressure ? Plausibility.allowsBloodPressure(value) : WindowChoice.fits(value, kind: kind)
  }

  /// One field of a monitor's display read (a blood pressure's systolic, diastolic or pulse) with
  /// its value as the monitor shows it in `range` (``Plausibility/bloodPressureField(_:range:)``);
  /// `repaired`, the value as read kept, when a leading 0 was taken for the lit digit it hid.
  public static func monitorField(_ field: ReadResult, range: ClosedRange<Double>) -> ReadResult {
    var field = field
    let shown = Plausibility.bloodPressureField(field.value, range: range)
    if shown != Plausibility.bloodPressureField(field.value) {
      field.unrepairedValue = field.value
      field.flags.append(.repaired)
    }
    field.value = shown
    return field
  }

  /// The flags without repeats, each where it first came.
  public static func ordered(_ flags: [ReadFlag]) -> [ReadFlag] {
    var seen = Set<ReadFlag>()
    return flags.filter { seen.insert($0).inserted }
  }

  /// The value with the meter's decimals: the point so many digits from the right, in place of
  /// one the display showed; with none set, the value as read.
  public static func withDecimals(_ value: String, decimals: Int) -> String {
    let digits = value.filter(\.isNumber)
    guard decimals > 0, digits.count > decimals, value.allSatisfy({ $0.isNumber || $0 == "." }) else { return value }
    return String(digits.dropLast(decimals)) + "." + String(digits.suffix(decimals))
  }

  static func summary(_ result: ReadResult, meter: Meter?) -> String {
    let name = meter?.name ?? "Reading"
    guard !result.value.isEmpty else {
      return "\(name): no reading (\(result.flags.map(\.rawValue).joined(separator: ", ")))"
    }
    let unit = meter.map { " \($0.unit)" } ?? ""
    let repaired = result.unrepairedValue.isEmpty ? "" : ", corrected from \(result.unrepairedValue)"
    return "\(name): \(result.value)\(unit) (confidence \(result.confidence.percentText)\(repaired))"
  }
}
