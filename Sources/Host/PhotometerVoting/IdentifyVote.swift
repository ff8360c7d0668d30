import Foundation
import PhotometerProtocol

/// Combines the identify plugins' candidates into one ranking.
///
/// Each plugin's confidence is its calibrated belief that a meter is the one in the photo. The
/// vote pools them in log-odds (a logarithmic opinion pool): a meter's combined log-odds are the
/// sum, over the voting plugins that answered, of `weight x logit(belief)`, where a plugin that
/// answered without ranking the meter believes ``floor``; a plugin that failed adds nothing. The
/// weights (plugins.json) are fitted with Tools/calibrate-identify.py on rendered households, so
/// the combined confidence is itself a calibrated belief. When two or more plugins answered and
/// all rank the same meter first, it gains ``agreement`` more: matchers that fail in different
/// ways (colour, print) seldom agree on a wrong meter. That is evidence only as far as chance
/// agreement is unlikely: among `meters` meters, two matchers put the same one first by chance
/// about once in `meters` times, so the term is at most log(`meters`) (nothing in a home of one
/// meter, where every matcher names the only meter there is). The best meter is the answer when it
/// reaches ``threshold``; otherwise the photo is of an unknown meter and the ranking lists the best
/// guesses.
public enum IdentifyVote {
  /// The combined confidence a meter needs to be the answer.
  public static let threshold = 0.5
  /// The confidence a meter needs before a reading is stored under it unasked (`read --save`
  /// without `--meter`): a reading stored under the wrong meter corrupts two histories, and
  /// naming the meter costs the user one option.
  public static let sureToSave = 0.9
  /// Beliefs are held within `floor ... 1 - floor`: no plugin is ever certain, and one that does
  /// not rank a meter at all is taken to believe this much in it.
  public static let floor = 0.01
  /// The log-odds a meter gains when every plugin that answered (two or more) ranks it first,
  /// fitted with the weights (Tools/calibrate-identify.py; its figures in docs/recognizers.md).
  public static let agreement = 2.734

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

  /// - Parameters:
  ///   - weights: each plugin's weight; a plugin not listed weighs 1.
  ///   - meters: how many meters the photo was compared with (the household's registered meters).
  public static func decide(
    _ answers: [PluginIdentification], weights: [String: Double] = [:], meters: Int
  ) -> Outcome {
    // Meters are numbered in the order first proposed and beliefs kept in arrays by number: with
    // 10,000 candidates a plugin, dictionaries of beliefs and candidates copied per meter were
    // most of the host's time after the plugins answered (docs/recognizers.md, *The vote's own
    // time*). IdentifyVotePoolTests holds it to the plain pool.
    let agreed = min(agreement, log(Double(max(meters, 1))))
    var numbers: [String: Int] = [:]
    var proposed: [Candidate] = []
    var voters: [(weight: Double, beliefs: [Double], first: Int)] = []
    for answer in answers where answer.voted {
      guard case .success(let candidates) = answer.outcome else {
        continue
      }
      var beliefs = [Double](repeating: -1, count: proposed.count)
      numbers.reserveCapacity(numbers.count + candidates.count)
      proposed.reserveCapacity(proposed.count + candidates.count)
      for candidate in candidates {
        let number = numbers[candidate.meter] ?? proposed.count
        if number == proposed.count {
          numbers[candidate.meter] = number
          proposed.append(Candidate(meter: candidate.meter, score: 0, confidence: 0))
          beliefs.append(-1)
        }
        beliefs[number] = max(beliefs[number], candidate.confidence, 0)
        // Geometry and colour come from whichever plugin knows them.
        if proposed[number].outline.isEmpty && !candidate.outline.isEmpty {
          proposed[number].outline = candidate.outline
        }
        if proposed[number].homography.isEmpty && !candidate.homography.isEmpty {
          proposed[number].homography = candidate.homography
        }
        if proposed[number].colour.isEmpty && !candidate.colour.isEmpty {
          proposed[number].colour = candidate.colour
        }
      }
      voters.append((weights[answer.plugin] ?? 1, beliefs, firstBelieved(beliefs, meters: proposed)))
    }
    // The meter every plugin that answered (two or more) believes in most, or none (-1).
    let agreedOn = voters.count > 1 && voters.allSatisfy({ $0.first == voters[0].first }) ? voters[0].first : -1
    let scores = proposed.indices.map { number in
      let score = voters.reduce(0) { sum, voter in
        let belief = number < voter.beliefs.count && voter.beliefs[number] >= 0 ? voter.beliefs[number] : floor
        return sum + voter.weight * logit(belief)
      }
      return number == agreedOn ? score + agreed : score
    }
    let ranking = proposed.indices
      .sorted { scores[$0] != scores[$1] ? scores[$0] > scores[$1] : proposed[$0].meter < proposed[$1].meter }
      .map { number in
        var candidate = proposed[number]
        candidate.score = scores[number]
        candidate.confidence = 1 / (1 + exp(-candidate.score))
        return candidate
      }
    guard let best = ranking.first, best.confidence >= threshold else {
      return Outcome(meter: "", confidence: ranking.first?.confidence ?? 0, ranking: ranking)
    }
    return Outcome(meter: best.meter, confidence: best.confidence, ranking: ranking)
  }

  /// The number of the meter a plugin believes in most, the first by name among equals (a plugin
  /// in another language may not sort); -1 when it proposed none.
  private static func firstBelieved(_ beliefs: [Double], meters: [Candidate]) -> Int {
    var first = -1
    for number in beliefs.indices where beliefs[number] >= 0 {
      if first < 0 || beliefs[number] > beliefs[first]
        || (beliefs[number] == beliefs[first] && meters[number].meter < meters[first].meter)
      {
        first = number
      }
    }
    return first
  }

  private static func logit(_ belief: Double) -> Double {
    let clamped = min(max(belief, floor), 1 - floor)
    return log(clamped / (1 - clamped))
  }
}
