import PhotometerProtocol

/// Combines the identify plugins' candidates into one ranking.
///
/// Each voting plugin that answered gives each of its candidates `weight x confidence`; a meter's
/// combined confidence is its total over the weight of all voting plugins, answered or failed. The
/// best meter is the answer when its combined confidence reaches ``threshold``; otherwise the photo
/// is of an unknown meter and the ranking lists the best guesses.
public enum IdentifyVote {
  /// The combined confidence a meter needs to be the answer.
  public static let threshold = 0.5

  public struct Outcome: Hashable, Sendable {
    /// The identified meter, or empty for an unknown meter.
    public var meter: String
    public var confidence: Double
    /// Every meter any voting plugin proposed, best first, with combined confidences.
    public var ranking: [Candidate]

    public init(meter: String, confidence: Double, ranking: [Candidate]) {
      self.meter = meter
      self.confidence = confidence
      self.ranking = ranking
    }
  }

  /// - Parameter weights: each plugin's weight; a plugin not listed weighs 1.
  public static func decide(_ answers: [PluginIdentification], weights: [String: Double] = [:]) -> Outcome {
    let voters = answers.filter(\.voted)
    let totalWeight = voters.reduce(0) { $0 + (weights[$1.plugin] ?? 1) }
    var combined: [String: Candidate] = [:]
    for answer in voters {
      guard case .success(let candidates) = answer.outcome else {
        continue
      }
      let weight = weights[answer.plugin] ?? 1
      for candidate in candidates {
        var entry = combined[candidate.meter] ?? Candidate(meter: candidate.meter, score: 0, confidence: 0)
        entry.score += weight * clamp(candidate.confidence)
        // Geometry and colour come from whichever plugin knows them.
        if entry.outline.isEmpty {
          entry.outline = candidate.outline
        }
        if entry.homography.isEmpty {
          entry.homography = candidate.homography
        }
        if entry.colour.isEmpty {
          entry.colour = candidate.colour
        }
        combined[candidate.meter] = entry
      }
    }
    let ranking =
      combined.values
      .map { candidate in
        var candidate = candidate
        candidate.confidence = totalWeight > 0 ? candidate.score / totalWeight : 0
        return candidate
      }
      .sorted { ($0.confidence, $1.meter) > ($1.confidence, $0.meter) }
    guard let best = ranking.first, best.confidence >= threshold else {
      return Outcome(meter: "", confidence: ranking.first?.confidence ?? 0, ranking: ranking)
    }
    return Outcome(meter: best.meter, confidence: best.confidence, ranking: ranking)
  }
}
