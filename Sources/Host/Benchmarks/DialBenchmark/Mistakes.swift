/// What a wrong whole-meter reading got wrong, by the part of the meter that decided it, so that a
/// set's errors say where the next gain lies (docs/recognizers.md, *Pointer dials*).
enum Mistake: CaseIterable {
  /// The value one unit of the finest dial off, its needle drawn within 0.05 of a division of a
  /// mark: a digit no reader can be sure of (``RenderedMeter/finestNeedleOnAMark(within:)``).
  case finestOnItsMark
  /// The value one unit of the finest dial off, its needle farther from a mark: the pointer's error.
  case finestDigit
  /// The wheels right, the dials' digits otherwise wrong.
  case dials
  /// The dials right (or one unit off), only the last wheel wrong.
  case lastWheel
  /// The dials right (or one unit off), higher wheels wrong: wheels turning with the
  /// last placed on the wrong side of the reading line, or a higher wheel misread.
  case higherWheels
  /// Wheels and dials both wrong: the meter misplaced in the photo, or misread throughout.
  case wheelsAndDials

  /// The mistake in `read` of `meter`, nil when it is right. A reading not of the value's shape
  /// (none, or its point elsewhere) is wrong throughout.
  init?(_ read: String, of meter: RenderedMeter) {
    let truth = meter.value
    guard read != truth else { return nil }
    guard read.count == truth.count, let point = truth.firstIndex(of: "."), read[point] == "." else {
      self = .wheelsAndDials
      return
    }
    let (readWheels, trueWheels) = (read[..<point], truth[..<point])
    let (readDials, trueDials) = (read[point...].dropFirst(), truth[point...].dropFirst())
    if Self.oneUnitApart(read.filter(\.isNumber), truth.filter(\.isNumber)) {
      // The finest needle read across a mark, its carry into coarser digits included (.8069 read .8070).
      self = meter.finestNeedleOnAMark() ? .finestOnItsMark : .finestDigit
    } else if readWheels == trueWheels {
      self = .dials
    } else if readDials != trueDials && !Self.oneUnitApart(readDials, trueDials) {
      self = .wheelsAndDials
    } else {
      self = readWheels.dropLast() == trueWheels.dropLast() ? .lastWheel : .higherWheels
    }
  }

  /// Whether two strings of digits, as whole numbers, are one apart (round their count's range,
  /// so 99999 and 00000 are).
  private static func oneUnitApart<S: StringProtocol>(_ a: S, _ b: S) -> Bool {
    guard a.count == b.count, a.count < 19, let x = Int(a), let y = Int(b) else { return false }
    var modulus = 1
    for _ in 0..<a.count { modulus *= 10 }
    let apart = ((x - y) % modulus + modulus) % modulus
    return apart == 1 || apart == modulus - 1
  }

  var label: String {
    switch self {
    case .finestOnItsMark: "finest digit on its mark"
    case .finestDigit: "finest digit"
    case .dials: "dials"
    case .lastWheel: "last wheel"
    case .higherWheels: "higher wheels"
    case .wheelsAndDials: "wheels and dials"
    }
  }
}

/// A set's wrong meters counted by ``Mistake``.
struct MistakeTally {
  var counts: [Mistake: Int] = [:]

  mutating func add(_ read: String, of meter: RenderedMeter) {
    if let mistake = Mistake(read, of: meter) {
      counts[mistake, default: 0] += 1
    }
  }

  /// "finest digit on its mark 3, finest digit 2, ...", every kind in order, or "none".
  var summary: String {
    guard !counts.isEmpty else { return "none" }
    return Mistake.allCases.map { "\($0.label) \(counts[$0] ?? 0)" }.joined(separator: ", ")
  }
}
