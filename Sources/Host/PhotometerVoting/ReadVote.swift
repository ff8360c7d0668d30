import Foundation
import PhotometerProtocol

/// Combines the read engines' answers into one value, digit by digit: the answers are aligned
/// (ROVER-style) and their beliefs pooled at each position.
///
/// Each voting engine's digits (decimal separators dropped: the meter's settings place them) are
/// aligned to a skeleton, the answer of the engine with the most `weight x confidence` that has
/// the expected number of digits when that is known. At each position every engine that read a
/// digit there gives a belief over the ten digits: its digit's confidence, its alternatives',
/// and what is left spread evenly over the digits it did not name. The beliefs are pooled
/// geometrically, each raised to its engine's weight over the heaviest engine's weight, and
/// normalised, so the heaviest engine's belief stands as it is and each other tilts it as far as
/// its weight allows. A digit's confidence is its pooled probability and its likelier wheel
/// neighbour's when an engine named that neighbour (a wheel caught between two digits reads
/// right as either); the value's confidence is that of its weakest digit, no surer than the
/// surest voting engine's own confidence for a reading of those digits (an engine's own counts a
/// digit it may have dropped or added, which no digit's confidence does).
///
/// (Pooled geometrically, not linearly, so that the confidence is a probability and a weak engine
/// that disagrees costs a sure digit less than an unsure one: docs/recognizers.md, *The vote*.)
///
/// A decimal point is where the skeleton's engine read one (a display's "36.7"); the meter's
/// decimals, when set, replace it (``ReadDecision/withDecimals(_:decimals:)``). A digit on a
/// wheel caught mid-roll is never surer than ``WheelRoll/confidenceLimit``: which of its two digits
/// the meter shows is its convention's and the previous reading's call.
///
/// When the skeleton does not have the meter's digit count (or that is unknown), an engine with
/// nothing at a position votes `weight x its reading's confidence` to drop it, against
/// `weight x confidence` of each engine that read a digit there; a position kept so has its
/// confidence scaled by the digits' side of that vote. Failed engines are flagged and have no
/// say; shadow engines (`voted == false`) never count.
public enum ReadVote {
  /// Below this confidence a result carries the `low-confidence` flag.
  public static let lowConfidence = 0.5

  /// The least belief an engine gives a digit (so that engines sure of different digits still
  /// pool to a belief).
  static let leastBelief = 1e-6

  public struct Outcome: Hashable, Sendable {
    /// The voted digits, with a decimal point where the skeleton's engine read one; empty when
    /// no voting engine answered.
    public var value: String
    public var confidence: Double
    /// Per digit of ``value`` (its point left out): the winner with its confidence and the
    /// runners-up.
    public var digits: [Symbol]
    /// `no-reading`, `engine-failed`, `engines-disagree`, `low-confidence`, in that order.
    public var flags: [ReadFlag]

    public init(value: String, confidence: Double, digits: [Symbol] = [], flags: [ReadFlag]) {
      self.value = value
      self.confidence = confidence
      self.digits = digits
      self.flags = flags
    }
  }

  /// - Parameters:
  ///   - weights: each plugin's weight; a plugin not listed weighs 1.
  ///   - expectedDigits: the meter's digit count, 0 when unknown.
  public static func decide(
    _ answers: [EngineAnswer], weights: [String: Double] = [:], expectedDigits: Int = 0
  ) -> Outcome {
    // In plugin order, so that the outcome does not depend on the order of the answers.
    let voters = answers.filter(\.voted).sorted { $0.plugin < $1.plugin }
    var failed = false
    var readings: [Reading] = []
    for answer in voters {
      switch answer.outcome {
      case .success(let reading):
        let symbols = digitSymbols(reading)
        if !symbols.isEmpty {
          readings.append(
            Reading(
              weight: max(0, weights[answer.plugin] ?? 1), symbols: symbols, confidence: clamp(reading.confidence),
              decimals: shownDecimals(reading.text)))
        }
      case .failure:
        failed = true
      }
    }
    guard let (skeleton, decimals) = skeleton(readings, expectedDigits: expectedDigits) else {
      return Outcome(value: "", confidence: 0, flags: [.noReading] + (failed ? [.engineFailed] : []))
    }
    // With the meter's digit count known and met by the skeleton, every position is a digit:
    // an engine that missed one abstains there instead of voting to drop it.
    let gapsVote = expectedDigits == 0 || skeleton.count != expectedDigits
    let heaviest = readings.map(\.weight).max() ?? 0
    var positions = [Position](repeating: Position(), count: skeleton.count)
    for reading in readings {
      let exponent = heaviest > 0 ? reading.weight / heaviest : 1
      for (position, symbol) in align(reading.symbols, to: skeleton).enumerated() {
        guard let symbol else {
          if gapsVote {
            positions[position].againstDigit += reading.weight * reading.confidence
          }
          continue
        }
        positions[position].add(symbol, exponent: exponent, weight: reading.weight)
      }
    }
    let digits = zip(positions, skeleton).compactMap { $0.outcome(preferring: $1.text.first?.wholeNumberValue) }
    let read = digits.map(\.text).joined()
    var value = read
    if let decimals, decimals < value.count {
      value.insert(".", at: value.index(value.endIndex, offsetBy: -decimals))
    }
    // The weakest digit's confidence says nothing of a digit the engines may have dropped or
    // added; an engine's own for its whole reading does: no surer than the surest that read these
    // digits.
    let own = readings.filter { $0.digits == read }.map(\.confidence).max()
    let confidence = min(digits.map(\.confidence).min() ?? 0, own ?? 1)
    var flags: [ReadFlag] = []
    if failed { flags.append(.engineFailed) }
    if Set(readings.map(\.digits)).count > 1 { flags.append(.enginesDisagree) }
    if confidence < lowConfidence { flags.append(.lowConfidence) }
    return Outcome(value: value, confidence: confidence, digits: digits, flags: flags)
  }

  /// An engine's digits with its weight, the reading's confidence and the digits after the
  /// decimal point it read.
  private struct Reading {
    var weight: Double
    var symbols: [Symbol]
    var confidence: Double
    var decimals: Int?

    /// The digits read, as one text.
    var digits: String { symbols.map(\.text).joined() }
  }

  /// The digits after a reading's one decimal point, or nil (no point, several, or none after).
  static func shownDecimals(_ text: String) -> Int? {
    guard text.filter({ $0 == "." }).count == 1, let point = text.firstIndex(of: ".") else { return nil }
    let after = text[text.index(after: point)...].filter(\.isNumber).count
    return after > 0 && text[..<point].contains(where: \.isNumber) ? after : nil
  }

  /// What the engines say about one position of the skeleton.
  private struct Position {
    /// Per digit 0-9, the sum of the engines' log beliefs, each times its exponent.
    var logBelief = [Double](repeating: 0, count: 10)
    /// The digits some engine named (its digit or an alternative).
    var named: Set<Int> = []
    /// `weight x confidence` of the engines that read a digit here, and of those that read none.
    var forDigit = 0.0
    var againstDigit = 0.0
    /// The strongest voice's word on a wheel caught between two digits.
    var roll: (weight: Double, roll: WheelRoll)?

    mutating func add(_ symbol: Symbol, exponent: Double, weight: Double) {
      guard let digit = symbol.text.first?.wholeNumberValue else { return }
      var belief = [Double?](repeating: nil, count: 10)
      belief[digit] = clamp(symbol.confidence)
      for alternative in symbol.alternatives {
        if alternative.text.count == 1, let other = alternative.text.first?.wholeNumberValue, belief[other] == nil {
          belief[other] = clamp(alternative.confidence)
        }
      }
      let said = belief.compactMap { $0 }
      let total = said.reduce(0, +)
      let unnamed = 10 - said.count
      var probabilities = (0..<10).map { index in
        belief[index].map { total > 1 ? $0 / total : $0 } ?? max(0, 1 - total) / Double(max(unnamed, 1))
      }
      // The digit read is the engine's likeliest, whatever confidence it gave (none: 0).
      probabilities[digit] = probabilities.max()!
      for index in 0..<10 {
        logBelief[index] += exponent * log(max(probabilities[index], ReadVote.leastBelief))
        if belief[index] != nil { named.insert(index) }
      }
      let strength = weight * clamp(symbol.confidence)
      forDigit += strength
      if let wheel = symbol.roll, strength > roll?.weight ?? 0 {
        roll = (strength, wheel)
      }
    }

    /// The voted digit, or nil when the position is dropped; of digits as likely, `preferred`
    /// (the skeleton's), then the smaller.
    func outcome(preferring preferred: Int?) -> Symbol? {
      // Dropped only by engines that read nothing here and outweigh those that read a digit.
      guard againstDigit == 0 || forDigit >= againstDigit else { return nil }
      let top = logBelief.max()!
      let unnormalised = logBelief.map { exp($0 - top) }
      let sum = unnormalised.reduce(0, +)
      let pooled = unnormalised.map { $0 / sum }
      let ranked = (0..<10).sorted { a, b in
        if pooled[a] != pooled[b] { return pooled[a] > pooled[b] }
        if (a == preferred) != (b == preferred) { return a == preferred }
        return a < b
      }
      let winner = ranked[0]
      let neighbour = [(winner + 1) % 10, (winner + 9) % 10].filter(named.contains).map { pooled[$0] }.max() ?? 0
      let kept = againstDigit == 0 ? 1 : forDigit / (forDigit + againstDigit)
      let rolling = roll.map(\.roll).flatMap { $0.fits(String(winner)) ? $0 : nil }
      let limit = rolling == nil ? 1 : WheelRoll.confidenceLimit
      return Symbol(
        text: String(winner), confidence: min(limit, pooled[winner] + neighbour) * kept,
        alternatives: ranked.dropFirst().filter(named.contains).prefix(3).map {
          Alternative(text: String($0), confidence: pooled[$0])
        },
        roll: rolling)
    }
  }

  /// The reading's digits as symbols: its own when they match its text, else one per digit of
  /// the text with the reading's confidence.
  public static func digitSymbols(_ reading: EngineReading) -> [Symbol] {
    let fromSymbols = reading.symbols.filter { $0.text.count == 1 && $0.text.first!.isNumber }
    if !fromSymbols.isEmpty, fromSymbols.map(\.text).joined() == reading.text.filter(\.isNumber) {
      return fromSymbols
    }
    return reading.text.filter(\.isNumber).map { Symbol(text: String($0), confidence: reading.confidence) }
  }

  /// The reading the others are aligned to: the strongest with the expected length, else the
  /// strongest.
  private static func skeleton(_ readings: [Reading], expectedDigits: Int) -> ([Symbol], decimals: Int?)? {
    let ranked = readings.sorted { $0.weight * $0.confidence > $1.weight * $1.confidence }
    return (ranked.first { $0.symbols.count == expectedDigits } ?? ranked.first).map { ($0.symbols, $0.decimals) }
  }

  /// For each skeleton position, the symbol of `symbols` aligned to it by edit distance, or nil.
  /// (Public for the read evaluation, which aligns each engine's digits with the truth so.)
  public static func align(_ symbols: [Symbol], to skeleton: [Symbol]) -> [Symbol?] {
    let rows = symbols.count, columns = skeleton.count
    var cost = [[Int]](repeating: [Int](repeating: 0, count: columns + 1), count: rows + 1)
    for row in 0...rows { cost[row][0] = row }
    for column in 0...columns { cost[0][column] = column }
    if rows > 0 && columns > 0 {
      for row in 1...rows {
        for column in 1...columns {
          let substitution = cost[row - 1][column - 1] + (symbols[row - 1].text == skeleton[column - 1].text ? 0 : 1)
          cost[row][column] = min(substitution, cost[row - 1][column] + 1, cost[row][column - 1] + 1)
        }
      }
    }
    var aligned = [Symbol?](repeating: nil, count: columns)
    var row = rows, column = columns
    while row > 0 && column > 0 {
      let same = symbols[row - 1].text == skeleton[column - 1].text ? 0 : 1
      if cost[row][column] == cost[row - 1][column - 1] + same {
        aligned[column - 1] = symbols[row - 1]
        row -= 1
        column -= 1
      } else if cost[row][column] == cost[row - 1][column] + 1 {
        row -= 1
      } else {
        column -= 1
      }
    }
    return aligned
  }
}

func clamp(_ value: Double) -> Double {
  value.isNaN ? 0 : min(max(value, 0), 1)
}
