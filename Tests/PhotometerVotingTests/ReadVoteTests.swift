import PhotometerProtocol
import PhotometerVoting
import Testing

@Suite struct ReadVoteTests {
  func answer(_ plugin: String, _ text: String, _ confidence: Double, voted: Bool = true) -> EngineAnswer {
    EngineAnswer(
      plugin: plugin, version: "1", outcome: .success(EngineReading(text: text, confidence: confidence)),
      milliseconds: 1, voted: voted)
  }

  func failure(_ plugin: String) -> EngineAnswer {
    EngineAnswer(
      plugin: plugin, version: "1", outcome: .failure(ErrorReply(.timeout, "slow")), milliseconds: 1, voted: true)
  }

  @Test func agreementGivesTheValueWithFullConfidence() {
    let outcome = ReadVote.decide([answer("a", "123", 1), answer("b", "123", 1)])
    #expect(outcome.value == "123")
    #expect(outcome.confidence > 0.999_999)
    #expect(outcome.flags == [])
  }

  @Test func weightsDecideADisagreement() {
    let answers = [answer("a", "123", 0.9), answer("b", "128", 0.9)]
    #expect(ReadVote.decide(answers, weights: ["a": 1, "b": 3]).value == "128")
    #expect(ReadVote.decide(answers, weights: ["a": 3, "b": 1]).value == "123")
    #expect(ReadVote.decide(answers, weights: ["a": 3, "b": 1]).flags == [.enginesDisagree])
  }

  @Test func confidenceDecidesBetweenEqualWeights() {
    #expect(ReadVote.decide([answer("a", "123", 0.4), answer("b", "128", 0.8)]).value == "128")
  }

  @Test func shadowEnginesDoNotCount() {
    let outcome = ReadVote.decide([answer("a", "123", 0.6), answer("shadow", "999", 1, voted: false)])
    #expect(outcome.value == "123")
    #expect(abs(outcome.confidence - 0.6) < 1e-9)
  }

  /// A reader sure of each digit of "60" but not that there are two (0.32 for its reading,
  /// counting the gap where a digit may hide) gives the value no more than 0.32; a shadow's sure
  /// "60" adds nothing.
  @Test func aValueIsNoSurerThanTheEngineThatReadIt() {
    let symbols = [Symbol(text: "6", confidence: 0.8), Symbol(text: "0", confidence: 0.57)]
    let reader = EngineAnswer(
      plugin: "reader", version: "1", outcome: .success(EngineReading(text: "60", confidence: 0.32, symbols: symbols)),
      milliseconds: 1, voted: true)
    let outcome = ReadVote.decide([reader, answer("shadow", "60", 1, voted: false)])
    #expect(outcome.value == "60")
    #expect(abs(outcome.confidence - 0.32) < 1e-9)
    // An engine whose own reading is surer than its weakest digit leaves the digit's.
    let sure = EngineAnswer(
      plugin: "reader", version: "1", outcome: .success(EngineReading(text: "60", confidence: 0.9, symbols: symbols)),
      milliseconds: 1, voted: true)
    #expect(abs(ReadVote.decide([sure]).confidence - 0.57) < 1e-9)
  }

  @Test func aFailedEngineIsFlaggedAndHasNoSay() {
    let outcome = ReadVote.decide([answer("a", "123", 0.8), failure("b")], weights: ["b": 3])
    #expect(outcome.value == "123")
    #expect(abs(outcome.confidence - 0.8) < 1e-9)
    #expect(outcome.flags == [.engineFailed])
  }

  @Test func anEngineThatGivesNoConfidenceStillGivesItsDigits() {
    let outcome = ReadVote.decide([answer("a", "42", 0)])
    #expect(outcome.value == "42")
    #expect(outcome.flags == [.lowConfidence])
  }

  @Test func noAnswerGivesNoReading() {
    #expect(ReadVote.decide([failure("a")]) == .init(value: "", confidence: 0, flags: [.noReading, .engineFailed]))
    #expect(ReadVote.decide([]).flags == [.noReading])
  }

  @Test func tiesDoNotDependOnAnswerOrder() {
    let forward = ReadVote.decide([answer("a", "123", 0.5), answer("b", "456", 0.5)])
    let backward = ReadVote.decide([answer("b", "456", 0.5), answer("a", "123", 0.5)])
    #expect(forward == backward)
  }
}
