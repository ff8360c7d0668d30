import PhotometerProtocol
import PhotometerVoting
import Testing

@Suite struct RoverVoteTests {
  func answer(_ plugin: String, _ digits: [(String, Double, [(String, Double)])], voted: Bool = true) -> EngineAnswer {
    let symbols = digits.map { text, confidence, alternatives in
      Symbol(
        text: text, confidence: confidence, alternatives: alternatives.map { Alternative(text: $0.0, confidence: $0.1) }
      )
    }
    let reading = EngineReading(
      text: symbols.map(\.text).joined(), confidence: symbols.map(\.confidence).min() ?? 0, symbols: symbols)
    return EngineAnswer(plugin: plugin, version: "1", outcome: .success(reading), milliseconds: 1, voted: voted)
  }

  func plain(_ plugin: String, _ text: String, _ confidence: Double) -> EngineAnswer {
    answer(plugin, text.map { (String($0), confidence, []) })
  }

  @Test func eachDigitGoesToTheStrongerVoiceAtItsPosition() {
    // a is sure of all but the third digit; b is sure of the third only.
    let outcome = ReadVote.decide([
      answer("a", [("1", 0.9, []), ("2", 0.9, []), ("8", 0.4, [("3", 0.3)]), ("4", 0.9, [])]),
      answer("b", [("7", 0.3, []), ("2", 0.5, []), ("3", 0.95, []), ("4", 0.5, [])]),
    ])
    #expect(outcome.value == "1234")
    #expect(outcome.digits.map(\.text) == ["1", "2", "3", "4"])
    #expect(outcome.digits[2].alternatives.first?.text == "8")
    #expect(outcome.flags.contains(.enginesDisagree))
  }

  @Test func aSureDigitStaysSureWhenALighterEngineReadsAnother() {
    // An engine of weight 3 is sure of a 7 that Tesseract (weight 1) reads as a 1.
    let outcome = ReadVote.decide(
      [answer("digits", [("7", 0.999, [("1", 0.0008)])]), answer("tesseract", [("1", 0.7, [])])],
      weights: ["digits": 3, "tesseract": 1])
    #expect(outcome.value == "7")
    #expect(outcome.confidence > 0.99)
    #expect(outcome.flags == [.enginesDisagree])
  }

  @Test func aLighterEngineTipsADigitTheHeavierIsUnsureOf() {
    let weights = ["digits": 3.0, "tesseract": 1]
    let unsure = answer("digits", [("4", 0.45, [("9", 0.29), ("8", 0.19)])])
    // Tesseract reads the runner-up the weight-3 engine half believes in: that tips it.
    let tipped = ReadVote.decide([unsure, answer("tesseract", [("8", 0.7, [])])], weights: weights)
    #expect(tipped.value == "8")
    #expect(tipped.digits[0].alternatives.first?.text == "4")
    // A digit the weight-3 engine gives next to nothing is not enough.
    let kept = ReadVote.decide([unsure, answer("tesseract", [("3", 0.7, [])])], weights: weights)
    #expect(kept.value == "4")
    #expect(kept.confidence < 0.5)
  }

  @Test func aWheelsNeighbourCountsForTheDigit() {
    // A wheel caught between 4 and 5 reads right as either; a 4 or a 7 does not.
    // (The digit's confidence: the value's is no surer than the engine's own, here 0.55.)
    let rolling = ReadVote.decide([answer("a", [("4", 0.55, [("5", 0.44)])])])
    #expect(rolling.value == "4")
    #expect(abs(rolling.digits[0].confidence - 0.99) < 1e-9)
    let torn = ReadVote.decide([answer("a", [("4", 0.55, [("7", 0.44)])])])
    #expect(abs(torn.digits[0].confidence - 0.55) < 1e-9)
  }

  @Test func aWheelsRollComesFromTheStrongestVoiceThatFitsTheDigit() {
    func rolling(_ plugin: String, _ text: String, _ confidence: Double, _ roll: WheelRoll?) -> EngineAnswer {
      let symbols = text.map { Symbol(text: String($0), confidence: confidence) }
      var reading = EngineReading(text: text, confidence: confidence, symbols: symbols)
      reading.symbols[1].roll = roll
      return EngineAnswer(plugin: plugin, version: "1", outcome: .success(reading), milliseconds: 1, voted: true)
    }
    // The second digit: a wheel between 4 and 5, past half-way, read 5.
    let outcome = ReadVote.decide([
      rolling("a", "152", 0.9, WheelRoll(from: "4", fraction: 0.6)),
      rolling("b", "152", 0.5, WheelRoll(from: "5", fraction: 0.2)),
    ])
    #expect(outcome.digits[1].roll == WheelRoll(from: "4", fraction: 0.6))
    #expect(outcome.digits[0].roll == nil)
    // A roll that does not fit the digit voted (a wheel between 7 and 8 for a 5) is dropped.
    let unfit = ReadVote.decide([rolling("a", "152", 0.9, WheelRoll(from: "7", fraction: 0.5))])
    #expect(unfit.digits[1].roll == nil)
  }

  @Test func aWheelCaughtMidRollIsNeverReportedSure() {
    var reading = EngineReading(
      text: "14", confidence: 0.99,
      symbols: [
        Symbol(text: "1", confidence: 0.999),
        Symbol(
          text: "4", confidence: 0.6, alternatives: [Alternative(text: "5", confidence: 0.4)],
          roll: WheelRoll(from: "4", fraction: 0.5)),
      ])
    let outcome = ReadVote.decide([
      EngineAnswer(plugin: "a", version: "1", outcome: .success(reading), milliseconds: 1, voted: true)
    ])
    #expect(outcome.value == "14")
    #expect(outcome.digits[1].confidence == WheelRoll.confidenceLimit)
    #expect(outcome.confidence == WheelRoll.confidenceLimit)
    reading.symbols[1].roll = nil
    let settled = ReadVote.decide([
      EngineAnswer(plugin: "a", version: "1", outcome: .success(reading), milliseconds: 1, voted: true)
    ])
    #expect(settled.digits[1].confidence > 0.99)
  }

  @Test func theDecimalPointStandsWhereTheSkeletonsEngineReadIt() {
    let outcome = ReadVote.decide([plain("a", "36.7", 0.9), plain("b", "367", 0.5)], weights: ["a": 3, "b": 1])
    #expect(outcome.value == "36.7")
    #expect(outcome.digits.map(\.text).joined() == "367")
    #expect(ReadVote.decide([plain("a", "367", 0.9), plain("b", "3.67", 0.5)], weights: ["a": 3]).value == "367")
    #expect(ReadVote.decide([plain("a", "3.6.7", 0.9)]).value == "367")
  }

  @Test func aMissingOrExtraDigitIsAlignedNotShifted() {
    // b dropped the second digit; a whole-string or position-by-position vote would shift it.
    let outcome = ReadVote.decide(
      [plain("a", "12345", 0.6), plain("b", "1345", 0.9), plain("c", "123456", 0.3)], expectedDigits: 5)
    #expect(outcome.value == "12345")
  }

  @Test func theSkeletonHasTheExpectedDigitCount() {
    let outcome = ReadVote.decide(
      [plain("a", "123", 0.9), plain("b", "0123", 0.6)], weights: ["a": 1, "b": 1], expectedDigits: 4)
    #expect(outcome.value.count == 4)
  }

  @Test func decimalSeparatorsAreNotDigits() {
    let outcome = ReadVote.decide([plain("a", "12.5", 0.9)])
    #expect(outcome.digits.map(\.text) == ["1", "2", "5"])
    #expect(outcome.value == "12.5")
  }

  @Test func theWeakestDigitIsTheValuesConfidence() {
    let outcome = ReadVote.decide([answer("a", [("1", 0.9, []), ("2", 0.3, [])])])
    #expect(abs(outcome.confidence - 0.3) < 1e-9)
    #expect(outcome.flags == [.lowConfidence])
  }

  @Test func shadowEnginesDoNotVote() {
    let outcome = ReadVote.decide([plain("a", "11", 0.5), answer("s", [("2", 1, []), ("2", 1, [])], voted: false)])
    #expect(outcome.value == "11")
  }
}
