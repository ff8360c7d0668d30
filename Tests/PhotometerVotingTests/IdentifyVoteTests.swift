import Foundation
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

  func logit(_ p: Double) -> Double { log(p / (1 - p)) }
  func sigmoid(_ z: Double) -> Double { 1 / (1 + exp(-z)) }

  @Test func aResultListsTheFirstMetersOfEachRankingAndKeepsErrors() {
    let many = (0..<30).map { ("m\($0)", 0.9 - Double($0) * 0.01) }
    let failed = PluginIdentification(
      plugin: "broken", version: "1", outcome: .failure(ErrorReply(.timeout, "too slow")), milliseconds: 1,
      voted: true)
    let result = IdentifyVote.result([answer("a", many), failed], weights: [:], meters: 30)
    let listing = result.listing(atMost: 3)
    #expect(listing.candidates.map(\.meter) == ["m0", "m1", "m2"])
    #expect(listing.plugins.first?.value?.map(\.meter) == ["m0", "m1", "m2"])
    #expect(listing.plugins.last == failed)
    #expect(listing.meter == "m0" && listing.confidence == result.confidence && listing.summary == result.summary)
    #expect(result.candidates.count == 30)
  }

  @Test func poolsThePluginsBeliefsInLogOdds() {
    let outcome = IdentifyVote.decide(
      [
        answer("histogram", [("gas", 0.9), ("water", 0.3)]),
        answer("keypoints", [("gas", 0.7), ("power", 0.2)]),
      ], meters: 100)
    #expect(outcome.meter == "gas")
    // Both rank gas first: it gains the agreement term too.
    #expect(abs(outcome.confidence - sigmoid(logit(0.9) + logit(0.7) + IdentifyVote.agreement)) < 1e-9)
    // A meter a plugin does not rank gets the floor belief from it.
    #expect(outcome.ranking.map(\.meter) == ["gas", "water", "power"])
    #expect(abs(outcome.ranking[1].confidence - sigmoid(logit(0.3) + logit(IdentifyVote.floor))) < 1e-9)
  }

  @Test func agreeingPluginsStrengthenEachOther() {
    let outcome = IdentifyVote.decide([answer("a", [("gas", 0.7)]), answer("b", [("gas", 0.7)])], meters: 100)
    #expect(outcome.meter == "gas")
    #expect(outcome.confidence > 0.84)
  }

  @Test func pluginsThatBothRankAMeterFirstOutweighTheirDoubts() {
    // Each alone is unsure; together, first for both, they name the meter.
    let unsure = [answer("a", [("gas", 0.3), ("water", 0.1)]), answer("b", [("gas", 0.35)])]
    let outcome = IdentifyVote.decide(unsure, meters: 100)
    #expect(outcome.meter == "gas")
    #expect(abs(outcome.confidence - sigmoid(logit(0.3) + logit(0.35) + IdentifyVote.agreement)) < 1e-9)
    // The meter a plugin believes in most counts as its first, in whatever order it listed them.
    let unsorted = [answer("a", [("water", 0.1), ("gas", 0.3)]), answer("b", [("gas", 0.35)])]
    #expect(IdentifyVote.decide(unsorted, meters: 100) == outcome)
    // One plugin alone agrees with nobody.
    #expect(IdentifyVote.decide([answer("a", [("gas", 0.3)])], meters: 100).meter == "")
  }

  /// Among few meters two matchers put the same one first by chance: in a home of one meter every
  /// matcher names it, and agreeing says nothing.
  @Test func agreementCountsNoMoreThanChanceAgreementIsUnlikely() {
    let unsure = [answer("a", [("gas", 0.3)]), answer("b", [("gas", 0.35)])]
    let alone = IdentifyVote.decide(unsure, meters: 1)
    #expect(alone.meter == "")
    #expect(abs(alone.confidence - sigmoid(logit(0.3) + logit(0.35))) < 1e-9)
    let pair = IdentifyVote.decide(unsure, meters: 2)
    #expect(abs(pair.confidence - sigmoid(logit(0.3) + logit(0.35) + log(2))) < 1e-9)
    // From 16 meters on (log 16 > agreement) the fitted term holds whole.
    let many = IdentifyVote.decide(unsure, meters: 16)
    #expect(abs(many.confidence - sigmoid(logit(0.3) + logit(0.35) + IdentifyVote.agreement)) < 1e-9)
  }

  @Test func disagreeingPluginsGiveAnUnknownMeterWithTheGuessesListed() {
    let outcome = IdentifyVote.decide([answer("a", [("gas", 0.6)]), answer("b", [("water", 0.6)])], meters: 100)
    #expect(outcome.meter == "")
    #expect(Set(outcome.ranking.map(\.meter)) == ["gas", "water"])
    #expect(outcome.confidence < 0.05)
  }

  @Test func shadowPluginsAndFailuresDoNotVote() {
    let failed = PluginIdentification(
      plugin: "c", version: "1", outcome: .failure(ErrorReply(.pluginFailed, "gone")), milliseconds: 1, voted: true)
    let outcome = IdentifyVote.decide(
      [answer("a", [("gas", 1)]), answer("s", [("water", 1)], voted: false), failed], meters: 100)
    #expect(outcome.meter == "gas")
    // Certainty is held at 1 - floor; the failed plugin leaves it there.
    #expect(abs(outcome.confidence - (1 - IdentifyVote.floor)) < 1e-9)
    #expect(outcome.ranking.map(\.meter) == ["gas"])
  }

  @Test func weightsCount() {
    let answers = [answer("a", [("gas", 0.9)]), answer("b", [("water", 0.9)])]
    #expect(IdentifyVote.decide(answers, weights: ["a": 3, "b": 1], meters: 100).meter == "gas")
    #expect(IdentifyVote.decide(answers, weights: ["a": 1, "b": 3], meters: 100).meter == "water")
  }

  @Test func noPluginAnsweredGivesAnUnknownMeter() {
    #expect(IdentifyVote.decide([], meters: 100).meter == "")
  }
}

@Suite struct SecondLookTests {
  func located(_ meter: String, _ confidence: Double) -> Candidate {
    Candidate(meter: meter, score: 30, confidence: confidence, homography: [1, 0, 0, 0, 1, 0, 0, 0, 1])
  }

  func proposed(_ meter: String, _ confidence: Double) -> Candidate {
    Candidate(meter: meter, score: 0.9, confidence: confidence)
  }

  func result(meter: String, _ candidates: [Candidate], plugins: [String] = ["keypoints", "histogram"])
    -> IdentifyResult
  {
    IdentifyResult(
      meter: meter, confidence: meter.isEmpty ? 0.2 : 0.9, candidates: candidates,
      plugins: plugins.map {
        PluginIdentification(plugin: $0, version: "1", outcome: .success([]), milliseconds: 1, voted: true)
      }, summary: meter.isEmpty ? "Unknown meter" : "This is \(meter)")
  }

  @Test func looksAgainAtTheFirstMetersNoPluginLocated() {
    // The keypoints located a meter at chance level; the histogram proposed six others.
    let ranking =
      [located("w-17", 0.3)] + (1...6).map { proposed("w-\($0)", 0.3 - Double($0) / 100) } + [located("w-9", 0.01)]
    let meters = IdentifyVote.secondLook(after: result(meter: "", ranking), among: 10_000)
    #expect(meters == ["w-1", "w-2", "w-3", "w-4", "w-5"])
    #expect(meters.count == IdentifyVote.secondLookMeters)
    // A household the verifying plugin checks a larger share of gets none.
    #expect(IdentifyVote.secondLook(after: result(meter: "", ranking), among: IdentifyVote.secondLookAbove).isEmpty)
  }

  @Test func theSecondLookTakesThePickedMetersReferences() {
    let ranking = (1...6).map { proposed("w-\($0)", 0.3 - Double($0) / 100) }
    let household = (0...1000).map { Reference(meter: "w-\($0)", image: Image(data: []), sha256: "s\($0)") }
    let looked = IdentifyVote.secondLookReferences(after: result(meter: "", ranking), in: household)
    #expect(looked.map(\.meter) == ["w-1", "w-2", "w-3", "w-4", "w-5"])
    #expect(
      IdentifyVote.secondLookReferences(after: result(meter: "", ranking), in: Array(household.prefix(1000))).isEmpty)
  }

  @Test func aNamedMeterGetsNoSecondLook() {
    let named = result(meter: "gas", [proposed("gas", 0.9), proposed("water", 0.2)])
    #expect(IdentifyVote.secondLook(after: named, among: 10_000).isEmpty)
  }

  @Test func theSecondLookAnswersOnlyWhenItNamesAMeter() {
    let first = result(meter: "", [proposed("w-1", 0.3)], plugins: ["keypoints", "histogram"])
    let named = result(meter: "w-1", [located("w-1", 0.99)], plugins: ["keypoints (look)", "histogram (look)"])
    let after = IdentifyVote.afterSecondLook(first, named, looked: 5)
    #expect(after.meter == "w-1")
    #expect(after.candidates == named.candidates)
    // Each plugin's answer for the whole household stays what the result reports.
    #expect(after.plugins.map(\.plugin) == ["keypoints", "histogram"])
    #expect(after.summary.contains("second look"))
    let unnamed = result(meter: "", [proposed("w-2", 0.3)])
    #expect(IdentifyVote.afterSecondLook(first, unnamed, looked: 5) == first)
  }
}
