import PhotometerProtocol

/// The engines' answers judged against the readings the user confirmed or corrected: what
/// `photometer ab` reports.
public struct EngineComparison: Sendable {
  /// One engine (or the vote) over the confirmed readings it answered.
  public struct Row: Sendable {
    public var engine: String
    /// The versions it reported over these readings, oldest first.
    public var versions: [String]
    /// Whether it voted (false for shadow engines); the vote itself counts as voting.
    public var voted: Bool
    public var score: EngineScore
  }

  /// Two engines on the readings both answered.
  public struct Pair: Sendable {
    public var first: String
    public var second: String
    public var readings: Int
    public var test: PairedComparison

    /// A plain statement of which is better, and whether the data says so.
    public var statement: String {
      let (better, worse, wins, losses) =
        test.onlyFirst >= test.onlySecond
        ? (first, second, test.onlyFirst, test.onlySecond) : (second, first, test.onlySecond, test.onlyFirst)
      let evidence =
        "on \(readings) readings both answered, \(better) alone was right \(wins) times and \(worse) alone "
        + "\(losses) times (McNemar p = \(formatP(test.pValue)))"
      if wins == losses {
        return "\(first) and \(second): no difference; \(evidence)"
      }
      return test.isSignificant
        ? "\(better) reads better than \(worse), a significant difference; \(evidence)"
        : "\(better) vs \(worse): no significant difference yet; \(evidence)"
    }
  }

  /// The name the vote goes by in the rows.
  public static let vote = "vote"

  public var rows: [Row] = []
  public var pairs: [Pair] = []
  /// Confirmed OCR readings taken into account.
  public var readings = 0

  /// Compares the engines over `readings`, of which only verified ones with engine answers count.
  ///
  /// `finerPlaces` gives, per meter, the places its value has past its wheels (its pointer dials,
  /// or 1 for an extended counter): there a digit engine answers the wheels and the dials engine
  /// the dials, and each is judged on its part of the value (told apart by their lengths).
  public init(_ readings: [StoredReading], finerPlaces: (String) -> Int = { _ in 0 }) {
    let confirmed = readings.filter { $0.verified && !$0.engines.isEmpty }
    self.readings = confirmed.count
    var rows: [String: Row] = [:]
    var order: [String] = []
    // Per reading, which engines were right: for the paired tests.
    var outcomes: [[String: Bool]] = []
    for reading in confirmed {
      let truth = reading.value.filter(\.isNumber).map(String.init)
      let vote = reading.votedValue.isEmpty ? nil : reading.votedValue.filter(\.isNumber)
      var right: [String: Bool] = [:]
      let places = finerPlaces(reading.meter)
      /// The part of `digits` an answer of `count` digits is judged on.
      func part<Digits: Collection>(_ digits: Digits, answered count: Int) -> [Digits.Element] {
        guard places > 0, places < digits.count else { return Array(digits) }
        if count == digits.count - places { return Array(digits.dropLast(places)) }
        if count == places { return Array(digits.suffix(places)) }
        return Array(digits)
      }
      func add(_ engine: String, version: String?, voted: Bool, answer: String?, confidence: Double, ms: Double) {
        if rows[engine] == nil {
          rows[engine] = Row(engine: engine, versions: [], voted: voted, score: EngineScore())
          order.append(engine)
        }
        if let version, rows[engine]!.versions.last != version, !rows[engine]!.versions.contains(version) {
          rows[engine]!.versions.append(version)
        }
        let exactBefore = rows[engine]!.score.exact
        let count = answer?.count ?? 0
        rows[engine]!.score.add(
          accepted: part(truth, answered: count), answer: answer, confidence: confidence, milliseconds: ms,
          vote: engine == Self.vote ? nil : vote.map { String(part($0, answered: count)) })
        right[engine] = rows[engine]!.score.exact > exactBefore
      }
      for answer in reading.engines {
        add(
          answer.plugin, version: answer.version, voted: answer.voted,
          answer: answer.value.map { $0.text.filter(\.isNumber) }, confidence: answer.value?.confidence ?? 0,
          ms: answer.milliseconds)
      }
      if let vote {
        add(Self.vote, version: nil, voted: true, answer: vote, confidence: reading.confidence ?? 0, ms: 0)
      }
      outcomes.append(right)
    }
    self.rows = order.map { rows[$0]! }
    for (index, first) in order.enumerated() {
      for second in order.dropFirst(index + 1) {
        var pair = Pair(first: first, second: second, readings: 0, test: PairedComparison(onlyFirst: 0, onlySecond: 0))
        for outcome in outcomes {
          guard let a = outcome[first], let b = outcome[second] else { continue }
          pair.readings += 1
          pair.test.onlyFirst += a && !b ? 1 : 0
          pair.test.onlySecond += b && !a ? 1 : 0
        }
        if pair.readings > 0 {
          pairs.append(pair)
        }
      }
    }
  }
}

/// A p-value for people: "0.031", "< 0.001".
public func formatP(_ p: Double) -> String {
  p < 0.001 ? "< 0.001" : String(format: "%.3f", p)
}
