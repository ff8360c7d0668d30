import PhotometerProtocol

/// Combines the read engines' answers into one value.
///
/// Whole-string plurality, weighted: each voting engine that answered gives its text
/// `weight x confidence`; the text with the most wins. The confidence of the result is the winner's
/// share of the weight of all voting engines, answered or failed, so a failed or dissenting engine
/// lowers it. Shadow engines (`voted == false`) never count.
public enum ReadVote {
  /// Below this confidence a result carries the `low-confidence` flag.
  public static let lowConfidence = 0.5

  public struct Outcome: Hashable, Sendable {
    /// The winning text, or empty when no voting engine answered.
    public var value: String
    public var confidence: Double
    /// `no-reading`, `engine-failed`, `engines-disagree`, `low-confidence`, in that order.
    public var flags: [String]

    public init(value: String, confidence: Double, flags: [String]) {
      self.value = value
      self.confidence = confidence
      self.flags = flags
    }
  }

  /// - Parameter weights: each plugin's weight; a plugin not listed weighs 1.
  public static func decide(_ answers: [EngineAnswer], weights: [String: Double] = [:]) -> Outcome {
    let voters = answers.filter(\.voted)
    let totalWeight = voters.reduce(0) { $0 + (weights[$1.plugin] ?? 1) }
    var scores: [String: Double] = [:]
    var failed = false
    for answer in voters {
      switch answer.outcome {
      case .success(let reading) where !reading.text.isEmpty:
        scores[reading.text, default: 0] += (weights[answer.plugin] ?? 1) * clamp(reading.confidence)
      case .success:
        break
      case .failure:
        failed = true
      }
    }
    // Ties go to the lexically smaller text so that the outcome does not depend on answer order.
    guard let best = scores.max(by: { ($0.value, $1.key) < ($1.value, $0.key) }), totalWeight > 0 else {
      return Outcome(value: "", confidence: 0, flags: ["no-reading"] + (failed ? ["engine-failed"] : []))
    }
    let confidence = best.value / totalWeight
    var flags: [String] = []
    if failed { flags.append("engine-failed") }
    if scores.count > 1 { flags.append("engines-disagree") }
    if confidence < lowConfidence { flags.append("low-confidence") }
    return Outcome(value: best.key, confidence: confidence, flags: flags)
  }
}

func clamp(_ value: Double) -> Double {
  value.isNaN ? 0 : min(max(value, 0), 1)
}
