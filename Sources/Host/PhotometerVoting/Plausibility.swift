import PhotometerProtocol

/// What values a meter can show now: its digit count, its range (or the physical range of its
/// kind), and for a counting meter the last reading (never down, at most its maximum rate since).
public struct Plausibility: Sendable {
  public let meter: Meter
  public let previous: StoredReading?
  /// Unix time in milliseconds.
  public let now: Int64

  public init(meter: Meter, previous: StoredReading?, now: Int64) {
    self.meter = meter
    self.previous = previous
    self.now = now
  }

  /// Physical ranges of medical kinds in their canonical units.
  public static func physicalRange(_ kind: MeterKind, unit: String) -> ClosedRange<Double>? {
    switch (kind, unit) {
    case (.glucose, "mg/dL"): 20...600
    case (.glucose, "mmol/L"): 1.1...33.3
    case (.thermometer, "C"): 30...45
    case (.thermometer, "F"): 86...113
    default: nil
    }
  }

  /// Physical ranges of a blood-pressure reading's fields: systolic and diastolic in mmHg,
  /// pulse in beats a minute.
  public static let systolic = 50.0...260
  public static let diastolic = 30.0...160
  public static let pulse = 30.0...220

  /// A blood-pressure reading's fields in order: systolic, diastolic, pulse.
  public static let bloodPressureFields = [systolic, diastolic, pulse]

  /// A blood-pressure field's reading as a monitor shows it: a whole number, without the zeros a
  /// reading told 3 digits puts in a display's blank leading place ("072" is 72) or a point read
  /// in it ("7.2"); any other text as it is.
  ///
  /// With the field's `range`: a monitor blanks its leading places, so a leading 0 that leaves the
  /// value out of `range` is a lit digit read with its ghost segments, one with no middle segment:
  /// a 1 or a 7, whichever alone puts the value in `range` (a diastolic's "02" is 72).
  public static func bloodPressureField(_ text: String, range: ClosedRange<Double>? = nil) -> String {
    let digits = text.filter { $0 != "." }
    guard digits.count > 1, digits.allSatisfy(\.isNumber), let number = Int(digits) else { return text }
    guard let range, digits.first == "0", !range.contains(Double(number)) else { return String(number) }
    let lit = ["1", "7"].compactMap { first in
      Int(first + digits.dropFirst()).flatMap { range.contains(Double($0)) ? $0 : nil }
    }
    return String(lit.count == 1 ? lit[0] : number)
  }

  /// `systolic/diastolic[/pulse]` as a monitor shows it, each field as ``bloodPressureField(_:range:)``
  /// makes it in its range, when that is a blood pressure (``allowsBloodPressure(_:)``); else nil.
  public static func bloodPressure(_ value: String) -> String? {
    let fields = value.split(separator: "/", omittingEmptySubsequences: false)
    guard fields.count <= bloodPressureFields.count else { return nil }
    let shown = zip(fields, bloodPressureFields).map { bloodPressureField(String($0), range: $1) }
      .joined(separator: "/")
    return allowsBloodPressure(shown) ? shown : nil
  }

  /// Whether `systolic/diastolic[/pulse]` is a blood pressure a monitor can show: each field in
  /// its range and the systolic above the diastolic.
  public static func allowsBloodPressure(_ value: String) -> Bool {
    let fields = value.split(separator: "/", omittingEmptySubsequences: false).map { Double($0) }
    guard fields.count == 2 || fields.count == 3, let high = fields[0], let low = fields[1] else {
      return false
    }
    guard systolic.contains(high), diastolic.contains(low), high > low else { return false }
    if fields.count == 3 {
      guard let beats = fields[2], pulse.contains(beats) else { return false }
    }
    return true
  }

  /// Whether the digits are a value the meter can show now: with the meter's decimals, or with
  /// the decimal point the display showed.
  public func allows(_ digits: String) -> Bool {
    guard meter.digits == 0 || digits.filter(\.isNumber).count == meter.digits, let value = number(digits) else {
      return false
    }
    if let range = meter.range ?? Self.physicalRange(meter.kind, unit: meter.unit), !range.contains(value) {
      return false
    }
    if meter.countsUp, let previous, previous.unit == meter.unit {
      guard value >= previous.numeric else { return false }
      if let rate = meter.maxRatePerHour, rate > 0 {
        let hours = max(Double(now - previous.takenAt) / 3_600_000, 0)
        guard value - previous.numeric <= rate * hours + 1e-9 else { return false }
      }
    }
    return true
  }

  /// The most likely plausible value that changes at most two digits to their runners-up.
  public func repair(_ digits: [Symbol]) -> (value: String, likelihood: Double)? {
    var best: (value: String, likelihood: Double)?
    func consider(_ choice: [Int]) {
      var text = ""
      var likelihood = 1.0
      for (position, pick) in choice.enumerated() {
        let symbol = digits[position]
        let option =
          pick == 0
          ? (symbol.text, symbol.confidence)
          : (
            symbol.alternatives[pick - 1].text, symbol.alternatives[pick - 1].confidence
          )
        text += option.0
        likelihood *= max(option.1, 0.001)
      }
      if allows(text), likelihood > best?.likelihood ?? 0 {
        best = (text, likelihood)
      }
    }
    let none = [Int](repeating: 0, count: digits.count)
    for first in digits.indices {
      for pick in digits[first].alternatives.indices {
        var choice = none
        choice[first] = pick + 1
        consider(choice)
        for second in (first + 1)..<digits.count {
          for other in digits[second].alternatives.indices {
            var pair = choice
            pair[second] = other + 1
            consider(pair)
          }
        }
      }
    }
    return best
  }

  /// `digits` (digits only) whose last `finerPlaces` were measured finer than the whole number
  /// before them (a water meter's dials, which the wheels' last digit turns with), moved to the
  /// plausible whole number nearest the one read, at most `reach` either way and the lower of two
  /// as near, the finer digits kept; with how many whole numbers within reach are plausible. Nil
  /// when none is. A counting meter read below its last reading (a half-turned last wheel named
  /// one short) is so read as the least advance the dials allow.
  public func nearestWhole(_ digits: String, finerPlaces: Int, reach: Int = 9) -> (value: String, choices: Int)? {
    let places = digits.count - finerPlaces
    guard finerPlaces > 0, (1...18).contains(places), digits.allSatisfy({ $0.isASCII && $0.isNumber }),
      let whole = Int(digits.prefix(places))
    else { return nil }
    let finer = String(digits.suffix(finerPlaces))
    let modulus = (0..<places).reduce(1) { product, _ in product * 10 }
    func text(_ number: Int) -> String {
      let shown = String(number)
      return String(repeating: "0", count: places - shown.count) + shown + finer
    }
    let plausible = (whole - reach...whole + reach).filter { $0 != whole && (0..<modulus).contains($0) }
      .filter { allows(text($0)) }
    guard let nearest = plausible.min(by: { (abs($0 - whole), $0) < (abs($1 - whole), $1) }) else { return nil }
    return (text(nearest), plausible.count)
  }

  /// The digits as a number with the meter's decimals (a point the display showed stands).
  private func number(_ digits: String) -> Double? {
    guard let whole = Double(digits) else { return nil }
    if digits.contains(".") { return whole }
    var scale = 1.0
    for _ in 0..<meter.decimals { scale *= 10 }
    return whole / scale
  }
}
