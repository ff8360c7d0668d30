import PhotometerProtocol
import PhotometerVoting
import Testing

@Suite struct IdentifyVoteTests {
  func answer(_ plugin: String, _ candidates: [(String, Double)], voted: Bool = true) -> PluginIdentification {
    PluginIdentification(
      plugin: plugin, version: "1",
      outcome: .success(candidates.map { Candidate(meter: $0.0, score: $0.1 * 100, confidence: $0.1) }),
      milliseconds: 1, voted: voted)
  }

  @Test func combinesPluginsIntoOneRanking() {
    let outcome = IdentifyVote.decide([
      answer("histogram", [("gas", 0.9), ("water", 0.3)]),
      answer("keypoints", [("gas", 0.7), ("power", 0.2)]),
    ])
    #expect(outcome.meter == "gas")
    #expect(abs(outcome.confidence - 0.8) < 1e-9)
    #expect(outcome.ranking.map(\.meter) == ["gas", "water", "power"])
  }

  @Test func belowTheThresholdTheMeterIsUnknownButGuessesAreListed() {
    let outcome = IdentifyVote.decide([answer("a", [("gas", 0.6)]), answer("b", [("water", 0.6)])])
    #expect(outcome.meter == "")
    #expect(outcome.ranking.count == 2)
    #expect(outcome.confidence == 0.3)
  }

  @Test func shadowPluginsAndFailuresAreHandled() {
    let failed = PluginIdentification(
      plugin: "c", version: "1", outcome: .failure(ErrorReply(.pluginFailed, "gone")), milliseconds: 1, voted: true)
    let outcome = IdentifyVote.decide([answer("a", [("gas", 1)]), answer("s", [("water", 1)], voted: false), failed])
    #expect(outcome.meter == "gas")
    #expect(outcome.confidence == 0.5)
    #expect(outcome.ranking.map(\.meter) == ["gas"])
  }

  @Test func weightsCount() {
    let answers = [answer("a", [("gas", 1)]), answer("b", [("water", 1)])]
    #expect(IdentifyVote.decide(answers, weights: ["a": 3, "b": 1]).meter == "gas")
    #expect(IdentifyVote.decide(answers, weights: ["a": 1, "b": 3]).meter == "water")
  }

  @Test func noPluginAnsweredGivesAnUnknownMeter() {
    #expect(IdentifyVote.decide([]).meter == "")
  }
}
