import PhotometerProtocol

extension ReadVote {
  /// The engines' answers and their vote as a read's result, before the meter's checks
  /// (``ReadDecision``).
  public static func result(_ answers: [EngineAnswer], weights: [String: Double], expectedDigits: Int = 0)
    -> ReadResult
  {
    let vote = decide(answers, weights: weights, expectedDigits: expectedDigits)
    let summary =
      vote.value.isEmpty
      ? "No reading: \(vote.flags.map(\.rawValue).joined(separator: ", "))"
      : "Reads \(vote.value) (confidence \(vote.confidence.percentText))"
    return ReadResult(
      value: vote.value, confidence: vote.confidence, engines: answers, flags: vote.flags, summary: summary,
      digits: vote.digits)
  }
}

extension IdentifyVote {
  /// The identify plugins' answers and their vote as an identification; the outline, homography
  /// and colour are the identified meter's.
  ///
  /// - Parameter meters: how many meters the photo was compared with.
  public static func result(_ answers: [PluginIdentification], weights: [String: Double], meters: Int)
    -> IdentifyResult
  {
    let vote = decide(answers, weights: weights, meters: meters)
    let summary =
      vote.meter.isEmpty
      ? "Unknown meter" + (vote.ranking.first.map { "; closest is \($0.meter) (\($0.confidence.percentText))" } ?? "")
      : "This is \(vote.meter) (confidence \(vote.confidence.percentText))"
    let best = vote.meter.isEmpty ? nil : vote.ranking.first
    return IdentifyResult(
      meter: vote.meter, confidence: vote.confidence, candidates: vote.ranking, plugins: answers, summary: summary,
      outline: best?.outline ?? [], homography: best?.homography ?? [], colour: best?.colour ?? "")
  }
}

extension IdentifyResult {
  /// How many meters a result lists at most, in its ranking and in each plugin's answer: a
  /// client needs the first few, and 10,000 of each took a tenth of the host's and the client's
  /// work at 10,000 meters. The vote and the second look see every candidate.
  public static let listed = 20

  /// This result with its ranking and each plugin's candidates cut to their first `count`.
  public func listing(atMost count: Int = listed) -> IdentifyResult {
    var listing = self
    listing.candidates = Array(candidates.prefix(count))
    listing.plugins = plugins.map { answer in
      var answer = answer
      answer.outcome = answer.outcome.map { Array($0.prefix(count)) }
      return answer
    }
    return listing
  }
}
