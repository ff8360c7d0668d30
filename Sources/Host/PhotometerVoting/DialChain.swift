import PhotometerProtocol

/// One value from a meter's counter wheels and its pointer dials (x0.1, x0.01, ... of the last
/// wheel's unit), decided by consistency: each pointer stands where its digit plus the next finer
/// dial's fraction puts it, and the last wheel turns with the x0.1 dial.
///
/// From the finest dial up, each coarser dial's digit is the one whose position plus the finer
/// dial's fraction lies nearest its pointer (a pointer just short of 5 on x0.1 reads 4 when x0.01
/// is near 9, and 5 when x0.01 is near 0). The dials together give the last wheel's fraction F;
/// the wheels' whole number is the one that puts the last wheel where what it would show agrees
/// best with what was read: at d + F a wheel shows d over 1 - F of its window and d + 1 over F, so
/// a wheel read as 5 (6 the runner-up) with F = 0.7 is 5.7, and read as 5 alone it is 4.7, the
/// digit it was read as nearest. A wheel caught half-way is decided by the dials, with no
/// threshold.
public struct DialChain: Hashable, Sendable {
  /// One dial as read: its pointer's position in [0, 10) and the reader's confidence.
  public struct Pointer: Hashable, Sendable {
    public var position: Double
    public var confidence: Double

    public init(position: Double, confidence: Double) {
      self.position = position
      self.confidence = confidence
    }
  }

  /// The whole number the wheels show, as many digits as there are wheels.
  public var wheels: String
  /// Each dial's digit, coarsest first.
  public var dialDigits: [Int]
  /// The weakest link: the wheels' confidence, and each dial's scaled by how well it agrees with
  /// the next finer one (``agreement(_:)``).
  public var confidence: Double
  /// The last wheel's digit differs from the one the wheels were read as.
  public var wheelDecidedByDials: Bool

  /// The value as the display would show it with a decimal point before the dials' digits.
  public var value: String {
    dialDigits.isEmpty ? wheels : wheels + "." + dialDigits.map(String.init).joined()
  }

  /// Combines the wheels read as `wheels` (digits only; `lastWheelRoll`, in [0, 1), how far the
  /// reader saw the last wheel turned past its digit) with `dials`, coarsest (x0.1) first.
  /// `lastWheel` holds how likely the reader found each digit in the last wheel (its answer and
  /// runners-up); without it the wheel was surely the digit read. `everyWheel`, when given, holds
  /// the same for every wheel, first to last: a higher wheel turning with the last is then
  /// settled by it (``settled(_:fraction:likelihoods:)``). Nil when `wheels` holds anything but
  /// digits.
  public init?(
    wheels: String, lastWheelRoll: Double = 0, lastWheel: [Int: Double] = [:], everyWheel: [[Int: Double]] = [],
    wheelConfidence: Double, dials: [Pointer]
  ) {
    guard !wheels.isEmpty, wheels.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
    var digits: [Int] = []
    var confidence = wheelConfidence
    var carried: Double? = nil  // the finer dials' value, in divisions of the dial above them: [0, 10)
    for dial in dials.reversed() {
      let position = Self.wrapped(dial.position)
      guard let finer = carried else {
        digits.append(Int(position) % 10)
        carried = position
        confidence = min(confidence, dial.confidence)
        continue
      }
      let digit = Self.wrapped((position - finer / 10).rounded())
      let residual = Self.apart(position, digit + finer / 10)
      digits.append(Int(digit) % 10)
      carried = digit + finer / 10
      confidence = min(confidence, dial.confidence * Self.agreement(residual))
    }
    let fraction = (carried ?? 0) / 10
    let read = Int(wheels)!
    let modulus = Self.power(wheels.count)
    let nearest = Int((Double(read) + lastWheelRoll - fraction).rounded())
    let placed = Self.placed(nearest, read: read, fraction: fraction, lastWheel: lastWheel)
    let whole = ((placed % modulus) + modulus) % modulus
    let text = String(whole)
    let padded = String(repeating: "0", count: max(0, wheels.count - text.count)) + text
    self.wheels =
      everyWheel.count == wheels.count
      ? Self.settled(padded, fraction: fraction, likelihoods: everyWheel) : padded
    self.dialDigits = digits.reversed()
    self.confidence = confidence
    self.wheelDecidedByDials = whole % 10 != read % 10
  }

  /// Combines wheels read as `symbols` (a reader's or the vote's, decimal point excluded): the
  /// dials place the last wheel, weighing its runners-up (its `alternatives`), and settle each
  /// higher wheel turning with it by its own. The reader's rolls are left out: on rendered meters
  /// they placed the last wheel worse (docs/recognizers.md).
  public init?(wheels symbols: [Symbol], wheelConfidence: Double, dials: [Pointer]) {
    let likelihoods = symbols.map(Self.likelihood)
    guard let last = likelihoods.last else { return nil }
    self.init(
      wheels: symbols.map(\.text).joined(), lastWheel: last, everyWheel: likelihoods,
      wheelConfidence: wheelConfidence, dials: dials)
  }

  /// `wheels` with each higher wheel that turns with the last (every wheel to its right shows 9)
  /// decided again, from the tens up: a wheel turning at `fraction` shows its digit d over
  /// 1 - fraction of its window and d + 1 over the rest, so of the digit placed and its two
  /// neighbours the one whose pair agrees best with what the reader found there (`likelihoods`,
  /// first wheel to last) is taken; the digit placed when none agrees better. A tens wheel half-way
  /// from 1 to 2 over a last wheel at 9.5 is named 2 about as often as 1; the counter says 1.
  static func settled(_ wheels: String, fraction: Double, likelihoods: [[Int: Double]]) -> String {
    var digits = wheels.compactMap(\.wholeNumberValue)
    guard digits.count == likelihoods.count else { return wheels }
    var index = digits.count - 2
    while index >= 0, digits[(index + 1)...].allSatisfy({ $0 == 9 }) {
      let found = likelihoods[index]
      func agreement(_ digit: Int) -> Double {
        (1 - fraction) * (found[digit] ?? 0) + fraction * (found[(digit + 1) % 10] ?? 0)
      }
      let placed = digits[index]
      for candidate in [(placed + 9) % 10, (placed + 1) % 10] where agreement(candidate) > agreement(digits[index]) {
        digits[index] = candidate
      }
      index -= 1
    }
    return digits.map(String.init).joined()
  }

  /// How likely a reader found each digit in a wheel: its answer and its runners-up.
  static func likelihood(of symbol: Symbol) -> [Int: Double] {
    var likelihood: [Int: Double] = [:]
    let named = [(symbol.text, symbol.confidence)] + symbol.alternatives.map { ($0.text, $0.confidence) }
    for (text, confidence) in named {
      if let digit = Int(text), (0...9).contains(digit), likelihood[digit] == nil {
        likelihood[digit] = confidence
      }
    }
    return likelihood
  }

  /// The wheels with the last wheel's roll as one more decimal, for a counter whose last wheel
  /// turns continuously (a meter's `extended`): the roll stands in for an x0.1 dial, so a last
  /// wheel read as 6, caught 0.85 of the way from 5, gives ...5.8. Nil when the wheels are not
  /// digits.
  public static func extending(wheels symbols: [Symbol], wheelConfidence: Double) -> DialChain? {
    guard let last = symbols.last else { return nil }
    let tenths = Pointer(position: (last.roll?.fraction ?? 0) * 10, confidence: last.confidence)
    return DialChain(
      wheels: symbols.map(\.text).joined(), lastWheel: likelihood(of: last), wheelConfidence: wheelConfidence,
      dials: [tenths])
  }

  /// The whole number, `nearest` or one either side, whose last wheel at its digit plus `fraction`
  /// would show what the reader saw most: its digit over 1 - fraction of the window, the next over
  /// the rest. `nearest` when the reader named no runner-up.
  static func placed(_ nearest: Int, read: Int, fraction: Double, lastWheel: [Int: Double]) -> Int {
    var likelihood = lastWheel
    likelihood[read % 10] = likelihood[read % 10] ?? 1
    guard likelihood.count > 1 else { return nearest }
    func agreement(_ whole: Int) -> Double {
      let digit = ((whole % 10) + 10) % 10
      return (1 - fraction) * (likelihood[digit] ?? 0) + fraction * (likelihood[(digit + 1) % 10] ?? 0)
    }
    return [nearest, nearest - 1, nearest + 1].max { agreement($0) < agreement($1) }!
  }

  /// How sure a coarser dial's digit is when its pointer stands `residual` divisions (0 to 0.5)
  /// from where the finer dial's fraction puts it: 1 up to ``doubtFrom``, falling to 0 at half a
  /// division, where the finer dial would make it the next digit. A residual under ``doubtFrom``
  /// is the reader's own error (0.2 of a division on 99.8% of ours' pointers) and leaves the digit
  /// as sure as the pointer; scaled from 0 on, it flagged one right field meter in nine
  /// (docs/recognizers.md, R151).
  static func agreement(_ residual: Double) -> Double {
    residual <= doubtFrom ? 1 : max(0, (0.5 - residual) / (0.5 - doubtFrom))
  }

  /// The residual from which a coarser dial's digit is in doubt: half a division less the
  /// reader's error bound.
  static let doubtFrom = 0.3

  static func wrapped(_ position: Double) -> Double {
    let value = position.truncatingRemainder(dividingBy: 10)
    return value < 0 ? value + 10 : value
  }

  /// Distance on a dial's circle, in divisions.
  static func apart(_ a: Double, _ b: Double) -> Double {
    let difference = abs(a - b).truncatingRemainder(dividingBy: 10)
    return min(difference, 10 - difference)
  }

  static func power(_ exponent: Int) -> Int {
    (0..<min(exponent, 18)).reduce(1) { result, _ in result * 10 }
  }
}
