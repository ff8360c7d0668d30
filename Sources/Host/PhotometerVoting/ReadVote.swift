import PhotometerProtocol

/// Combines the read engines' answers into one value, character by character (ROVER-style).
///
/// Each voting engine's digits (decimal separators dropped: the meter's settings place them) are
/// aligned to a skeleton, the answer of the engine with the most `weight x confidence` that has
/// the expected number of digits when that is known. At each position every engine votes
/// `weight x probability` for its character and, through its symbol's alternatives, for the
/// runners-up; an engine with nothing at that position votes for a gap (unless the skeleton has
/// the meter's digit count: then it abstains). A position's winner is kept unless the gap wins. A digit's confidence is its winner's share of the weight of all
/// voting engines, answered or failed; the value's confidence is that of its weakest digit.
/// Shadow engines (`voted == false`) never count.
public enum ReadVote {
  /// Below this confidence a result carries the `low-confidence` flag.
  public static let lowConfidence = 0.5

  public struct Outcome: Hashable, Sendable {
    /// The voted digits, or empty when no voting engine answered.
    public var value: String
    public var confidence: Double
    /// Per digit of ``value``: the winner with its confidence and the runners-up.
    public var digits: [Symbol]
    /// `no-reading`, `engine-failed`, `engines-disagree`, `low-confidence`, in that order.
    public var flags: [String]

    public init(value: String, confidence: Double, digits: [Symbol] = [], flags: [String]) {
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
    let voters = answers.filter(\.voted)
    let totalWeight = voters.reduce(0) { $0 + (weights[$1.plugin] ?? 1) }
    var failed = false
    var readings: [(weight: Double, symbols: [Symbol], confidence: Double)] = []
    for answer in voters {
      switch answer.outcome {
      case .success(let reading):
        let symbols = digitSymbols(reading)
        if !symbols.isEmpty {
          readings.append((weights[answer.plugin] ?? 1, symbols, clamp(reading.confidence)))
        }
      case .failure:
        failed = true
      }
    }
    guard totalWeight > 0, let skeleton = skeleton(readings, expectedDigits: expectedDigits) else {
      return Outcome(value: "", confidence: 0, flags: ["no-reading"] + (failed ? ["engine-failed"] : []))
    }
    // With the meter's digit count known and met by the skeleton, every position is a digit:
    // an engine that missed one abstains there instead of voting to drop it.
    let gapsVote = expectedDigits == 0 || skeleton.count != expectedDigits
    var ballots = [[String: Double]](repeating: [:], count: skeleton.count)
    // Per position, the strongest voice's word on a wheel caught between two digits.
    var rolls = [(weight: Double, roll: WheelRoll)?](repeating: nil, count: skeleton.count)
    for reading in readings {
      let aligned = align(reading.symbols, to: skeleton)
      for position in skeleton.indices {
        guard let symbol = aligned[position] else {
          if gapsVote {
            ballots[position]["", default: 0] += reading.weight * reading.confidence
          }
          continue
        }
        ballots[position][symbol.text, default: 0] += reading.weight * clamp(symbol.confidence)
        if let roll = symbol.roll, reading.weight * clamp(symbol.confidence) > rolls[position]?.weight ?? 0 {
          rolls[position] = (reading.weight * clamp(symbol.confidence), roll)
        }
        for alternative in symbol.alternatives where alternative.text.count == 1 {
          ballots[position][alternative.text, default: 0] += reading.weight * clamp(alternative.confidence)
        }
      }
    }
    let digits = zip(ballots, rolls).compactMap { ballot, roll -> Symbol? in
      // Ties go to the smaller character so that the outcome does not depend on answer order.
      let ranked = ballot.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
      guard let winner = ranked.first, !winner.key.isEmpty else { return nil }
      return Symbol(
        text: winner.key, confidence: min(1, winner.value / totalWeight),
        alternatives: ranked.dropFirst().filter { !$0.key.isEmpty }.prefix(3).map {
          Alternative(text: $0.key, confidence: min(1, $0.value / totalWeight))
        },
        roll: roll.map(\.roll).flatMap { $0.fits(winner.key) ? $0 : nil })
    }
    let value = digits.map(\.text).joined()
    let confidence = digits.map(\.confidence).min() ?? 0
    var flags: [String] = []
    if failed { flags.append("engine-failed") }
    if Set(readings.map { $0.symbols.map(\.text).joined() }).count > 1 { flags.append("engines-disagree") }
    if confidence < lowConfidence { flags.append("low-confidence") }
    return Outcome(value: value, confidence: confidence, digits: digits, flags: flags)
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
  private static func skeleton(
    _ readings: [(weight: Double, symbols: [Symbol], confidence: Double)], expectedDigits: Int
  ) -> [Symbol]? {
    let ranked = readings.sorted { $0.weight * $0.confidence > $1.weight * $1.confidence }
    return (ranked.first { $0.symbols.count == expectedDigits } ?? ranked.first)?.symbols
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
