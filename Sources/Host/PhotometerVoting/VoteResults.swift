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
