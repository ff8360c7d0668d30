import Foundation
import PhotometerProtocol
import PhotometerVoting
import TestSupport
import Testing

/// `IdentifyVote.decide` numbers meters and keeps beliefs in arrays for speed; it must give what
/// the pool its documentation defines gives, written here the plain way, with dictionaries.
@Suite struct IdentifyVotePoolTests {
  /// The pool as `IdentifyVote`'s documentation states it.
  static func plainPool(_ answers: [PluginIdentification], weights: [String: Double], meters: Int)
    -> IdentifyVote.Outcome
  {
    func logit(_ belief: Double) -> Double {
      let clamped = min(max(belief, IdentifyVote.floor), 1 - IdentifyVote.floor)
      return log(clamped / (1 - clamped))
    }
    let agreed = min(IdentifyVote.agreement, log(Double(max(meters, 1))))
    var voters: [(weight: Double, beliefs: [String: Double], first: String)] = []
    var combined: [String: Candidate] = [:]
    for answer in answers where answer.voted {
      guard case .success(let candidates) = answer.outcome else { continue }
      var beliefs: [String: Double] = [:]
      for candidate in candidates {
        beliefs[candidate.meter] = max(beliefs[candidate.meter] ?? 0, candidate.confidence)
        var entry = combined[candidate.meter] ?? Candidate(meter: candidate.meter, score: 0, confidence: 0)
        if entry.outline.isEmpty { entry.outline = candidate.outline }
        if entry.homography.isEmpty { entry.homography = candidate.homography }
        if entry.colour.isEmpty { entry.colour = candidate.colour }
        combined[candidate.meter] = entry
      }
      let first = beliefs.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? ""
      voters.append((weights[answer.plugin] ?? 1, beliefs, first))
    }
    let ranking = combined.values.map { candidate in
      var candidate = candidate
      candidate.score = voters.reduce(0) { $0 + $1.weight * logit($1.beliefs[candidate.meter] ?? IdentifyVote.floor) }
      if voters.count > 1 && voters.allSatisfy({ $0.first == candidate.meter }) {
        candidate.score += agreed
      }
      candidate.confidence = 1 / (1 + exp(-candidate.score))
      return candidate
    }
    .sorted { ($0.score, $1.meter) > ($1.score, $0.meter) }
    guard let best = ranking.first, best.confidence >= IdentifyVote.threshold else {
      return IdentifyVote.Outcome(meter: "", confidence: ranking.first?.confidence ?? 0, ranking: ranking)
    }
    return IdentifyVote.Outcome(meter: best.meter, confidence: best.confidence, ranking: ranking)
  }

  /// A plugin's answer: meters drawn from a small pool (so plugins share some and repeat some),
  /// confidences from a few values (so ties happen), some located, or a failure.
  static func answer(_ plugin: String, voted: Bool, using random: inout SplitMix64) -> PluginIdentification {
    if Int.random(in: 0..<8, using: &random) == 0 {
      return PluginIdentification(
        plugin: plugin, version: "1", outcome: .failure(ErrorReply(.timeout, "late")), milliseconds: 1, voted: voted)
    }
    let candidates = (0..<Int.random(in: 0...12, using: &random)).map { _ in
      let located = Bool.random(using: &random)
      return Candidate(
        meter: "m\(Int.random(in: 0..<15, using: &random))", score: 0,
        confidence: [0, 0.05, 0.3, 0.5, 0.9, 1, -0.2].randomElement(using: &random)!,
        outline: located ? [Point(x: 1, y: 2)] : [], homography: located ? [Double](repeating: 1, count: 9) : [],
        colour: Bool.random(using: &random) ? "#\(plugin.count)0a0b0" : "")
    }
    return PluginIdentification(
      plugin: plugin, version: "1", outcome: .success(candidates), milliseconds: 1, voted: voted)
  }

  @Test func theVoteIsThePoolItsDocumentationDefines() {
    var random = SplitMix64(seed: 42)
    let weights = ["a": 1.015, "b": 0.38]
    for trial in 0..<2_000 {
      let answers = ["a", "b", "c"].prefix(Int.random(in: 1...3, using: &random)).map { plugin in
        Self.answer(plugin, voted: Int.random(in: 0..<6, using: &random) > 0, using: &random)
      }
      let meters = [1, 2, 15, 10_000].randomElement(using: &random)!
      let fast = IdentifyVote.decide(answers, weights: weights, meters: meters)
      let plain = Self.plainPool(answers, weights: weights, meters: meters)
      #expect(fast == plain, "trial \(trial)")
    }
  }
}
