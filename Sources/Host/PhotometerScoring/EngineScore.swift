/// One engine's results against the truth, over a set of images or of confirmed readings: the
/// figures people compare OCR engines by.
public struct EngineScore: Sendable {
  /// One answer: whether it was exactly right, how many of its digits were, its confidence.
  public struct Answer: Sendable {
    public var exact: Bool
    public var confidence: Double
    public var milliseconds: Double
  }

  public private(set) var answers: [Answer] = []
  /// Digits in the truths, and how many of them the answers got right.
  public private(set) var digits = 0
  public private(set) var digitsRight = 0
  /// Character edits (insertions, deletions, substitutions) from the answers to the truths.
  public private(set) var characterErrors = 0
  /// Answers that differ from the vote's value, where the vote's value is known.
  public private(set) var disagreements = 0
  public private(set) var comparedWithVote = 0

  public init() {}

  public var count: Int { answers.count }
  public var exact: Int { answers.filter(\.exact).count }

  /// Adds one answer.
  ///
  /// - Parameters:
  ///   - accepted: per digit of the truth, the characters a reader may rightly give there (a
  ///     wheel caught between two digits allows both); a plain truth is one character each.
  ///   - answer: what the engine read; nil when it failed (every digit wrong).
  ///   - vote: the vote's value, to count disagreements; nil when not known.
  public mutating func add(
    accepted: [String], answer: String?, confidence: Double, milliseconds: Double, vote: String? = nil
  ) {
    let answer = Array(answer ?? "")
    let truth = accepted.map { $0.first ?? " " }
    digits += accepted.count
    let right: Int
    let errors: Int
    if answer.count == accepted.count {
      right = zip(answer, accepted).filter { $1.contains($0) }.count
      errors = accepted.count - right
    } else {
      errors = editDistance(truth, answer)
      right = max(0, accepted.count - errors)
    }
    digitsRight += right
    characterErrors += errors
    answers.append(
      Answer(
        exact: right == accepted.count && answer.count == accepted.count, confidence: confidence,
        milliseconds: milliseconds))
    if let vote {
      comparedWithVote += 1
      disagreements += vote == String(answer) ? 0 : 1
    }
  }

  /// Whole values read exactly, with its 95% interval.
  public var exactRate: Proportion { Proportion(exact, of: count) }
  /// Digits read right.
  public var digitAccuracy: Proportion { Proportion(digitsRight, of: digits) }
  /// Character errors per character of the truths.
  public var characterErrorRate: Double { digits == 0 ? 0 : Double(characterErrors) / Double(digits) }
  /// How often the answer differed from the vote's.
  public var disagreementRate: Proportion { Proportion(disagreements, of: comparedWithVote) }

  /// Exact answers among the most confident ones, when the least confident `rejected` share is
  /// turned away.
  public func acceptedAccuracy(rejecting rejected: Double = 0.1) -> Proportion {
    let kept = answers.sorted { $0.confidence > $1.confidence }
      .prefix(Int((Double(answers.count) * (1 - rejected)).rounded()))
    return Proportion(kept.filter(\.exact).count, of: kept.count)
  }

  /// How far the confidences are from being probabilities (expected calibration error): the
  /// answers binned by confidence into `bins` equal widths, each bin's gap between its mean
  /// confidence and its share of exact answers, weighted by its share of the answers. 0 when a
  /// confidence of 0.9 is right 9 times in 10 throughout.
  public func calibrationError(bins: Int = 10) -> Double {
    guard !answers.isEmpty, bins > 0 else { return 0 }
    var confidence = [Double](repeating: 0, count: bins)
    var exact = [Double](repeating: 0, count: bins)
    for answer in answers {
      let clamped = answer.confidence.isNaN ? 0 : min(max(answer.confidence, 0), 1)
      let bin = min(Int(clamped * Double(bins)), bins - 1)
      confidence[bin] += clamped
      exact[bin] += answer.exact ? 1 : 0
    }
    return (0..<bins).reduce(0) { $0 + abs(confidence[$1] - exact[$1]) } / Double(answers.count)
  }

  /// The time an answer took at `fraction` (0.5: the median), in milliseconds.
  public func latency(_ fraction: Double) -> Double {
    percentile(answers.map(\.milliseconds), fraction)
  }
}

/// The value at `fraction` of the sorted `values` (nearest rank); 0 when there are none.
public func percentile(_ values: [Double], _ fraction: Double) -> Double {
  let sorted = values.sorted()
  guard !sorted.isEmpty else { return 0 }
  return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction + 0.5))]
}

/// Levenshtein distance between two strings of characters.
public func editDistance(_ a: [Character], _ b: [Character]) -> Int {
  var previous = Array(0...b.count)
  for (i, x) in a.enumerated() {
    var current = [i + 1]
    for (j, y) in b.enumerated() {
      current.append(min(previous[j] + (x == y ? 0 : 1), previous[j + 1] + 1, current[j] + 1))
    }
    previous = current
  }
  return previous[b.count]
}
