import PhotometerProtocol
import PhotometerScoring
import Testing

@Suite struct EngineScoreTests {
  @Test func countsExactValuesDigitsAndCharacterErrors() {
    var score = EngineScore()
    score.add(accepted: ["1", "2", "3"], answer: "123", confidence: 0.9, milliseconds: 4)
    score.add(accepted: ["1", "2", "3"], answer: "128", confidence: 0.8, milliseconds: 6)
    score.add(accepted: ["1", "2", "3"], answer: "13", confidence: 0.2, milliseconds: 8)
    score.add(accepted: ["4", "5|6"], answer: "46", confidence: 0.7, milliseconds: 2)
    score.add(accepted: ["7"], answer: nil, confidence: 0, milliseconds: 30)
    #expect(score.exact == 2)
    #expect(score.count == 5)
    #expect(score.digits == 12)
    // 3 + 2 + 2 (one deleted) + 2 (a wheel between 5 and 6) + 0 (no answer).
    #expect(score.digitsRight == 9)
    #expect(score.characterErrors == 3)
    #expect(score.latency(0.5) == 6)
    // Rejecting the least confident 20% drops the failure: 2 of 4 kept are exact.
    #expect(score.acceptedAccuracy(rejecting: 0.2) == Proportion(2, of: 4))
  }

  @Test func measuresHowFarConfidencesAreFromProbabilities() {
    var score = EngineScore()
    // At 0.9, 9 of 10 right; at 0.25, 1 of 4: confidences that are probabilities.
    for index in 0..<10 {
      score.add(accepted: ["1"], answer: index < 9 ? "1" : "7", confidence: 0.9, milliseconds: 1)
    }
    for index in 0..<4 {
      score.add(accepted: ["1"], answer: index < 1 ? "1" : "7", confidence: 0.25, milliseconds: 1)
    }
    #expect(score.calibrationError() < 1e-9)
    // Two more right answers at 0.25: that bin is 3 of 6 right at 0.25, off by 0.25 for 6 of 16.
    score.add(accepted: ["1"], answer: "1", confidence: 0.25, milliseconds: 1)
    score.add(accepted: ["1"], answer: "1", confidence: 0.25, milliseconds: 1)
    #expect(abs(score.calibrationError() - 0.25 * 6 / 16) < 1e-9)
  }

  @Test func countsDisagreementsWithTheVote() {
    var score = EngineScore()
    score.add(accepted: ["1"], answer: "1", confidence: 1, milliseconds: 1, vote: "1")
    score.add(accepted: ["1"], answer: "7", confidence: 1, milliseconds: 1, vote: "1")
    score.add(accepted: ["1"], answer: "7", confidence: 1, milliseconds: 1)
    #expect(score.disagreementRate == Proportion(1, of: 2))
  }
}

@Suite struct ProportionTests {
  @Test func wilsonIntervalsMatchPublishedValues() {
    // Wilson 95% for 81 of 263: 0.2553 to 0.3662 (Newcombe 1998, example b).
    let interval = Proportion(81, of: 263).interval
    #expect(abs(interval.lowerBound - 0.2553) < 0.0005)
    #expect(abs(interval.upperBound - 0.3662) < 0.0005)
    // All right still leaves room below 1; none right above 0.
    #expect(Proportion(10, of: 10).interval.lowerBound < 0.73)
    #expect(Proportion(0, of: 10).interval.upperBound > 0.27)
    #expect(Proportion(0, of: 0).formatted == "-")
  }

  @Test func mcNemarTellsARealDifferenceFromChance() {
    // 10 to 0 discordant pairs: 2 / 2^10.
    #expect(abs(PairedComparison(onlyFirst: 10, onlySecond: 0).pValue - 2.0 / 1024) < 1e-12)
    #expect(PairedComparison(onlyFirst: 10, onlySecond: 0).isSignificant)
    #expect(!PairedComparison(onlyFirst: 6, onlySecond: 4).isSignificant)
    #expect(PairedComparison(onlyFirst: 0, onlySecond: 0).pValue == 1)
    // Large counts stay finite: 600 to 400.
    #expect(PairedComparison(onlyFirst: 600, onlySecond: 400).pValue < 1e-9)
  }
}

@Suite struct EngineComparisonTests {
  func reading(_ value: String, voted: String, verified: Bool = true, answers: [(String, String?, Bool)])
    -> StoredReading
  {
    var reading = StoredReading(
      id: 1, meter: "Water", value: value, numeric: Double(value) ?? 0, unit: "m3", takenAt: 0, recordedAt: 0,
      source: value == voted ? .ocr : .corrected, confidence: 0.9, verified: verified,
      engines: answers.map { name, text, voted in
        EngineAnswer(
          plugin: name, version: "1.0",
          outcome: text.map { .success(EngineReading(text: $0, confidence: 0.9)) }
            ?? .failure(ErrorReply(.pluginFailed, "crashed", plugin: name)),
          milliseconds: 5, voted: voted)
      })
    reading.votedValue = voted
    return reading
  }

  /// A water meter with two dials: the reader answers the wheels, the dials engine the dials;
  /// each is judged on its part of the confirmed value, the vote on the whole.
  @Test func onAMeterWithDialsEachEngineIsJudgedOnItsPart() {
    let readings = [
      reading(
        "00123.45", voted: "00123.45",
        answers: [("reader", "00123", true), ("dials", "45", true), ("tess", "00128", false)])
    ]
    let comparison = EngineComparison(readings) { $0 == "Water" ? 2 : 0 }
    let exact = Dictionary(uniqueKeysWithValues: comparison.rows.map { ($0.engine, $0.score.exact) })
    #expect(exact == ["reader": 1, "dials": 1, "tess": 0, EngineComparison.vote: 1])
    // Without the places, the engines' answers are judged against the whole value.
    let unaware = EngineComparison(readings)
    #expect(unaware.rows.first { $0.engine == "reader" }?.score.exact == 0)
  }

  @Test func judgesEachEngineAndTheVoteAgainstConfirmedReadings() {
    var readings: [StoredReading] = []
    // 12 readings the first engine gets right and Tesseract wrong; one the other way round.
    for _ in 0..<12 {
      readings.append(
        reading("0123.4", voted: "0123.4", answers: [("digits", "01234", true), ("tess", "01284", true)]))
    }
    readings.append(reading("0555.5", voted: "0556.5", answers: [("digits", "05565", true), ("tess", "05555", true)]))
    // A failed shadow engine, and an unconfirmed reading that must not count.
    readings[0].engines.append(
      EngineAnswer(
        plugin: "new", version: "2.0", outcome: .failure(ErrorReply(.timeout, "slow")), milliseconds: 9,
        voted: false))
    readings.append(reading("9", voted: "9", verified: false, answers: [("digits", "1", true)]))

    let comparison = EngineComparison(readings)
    #expect(comparison.readings == 13)
    #expect(comparison.rows.map(\.engine) == ["digits", "tess", "new", "vote"])
    let digits = comparison.rows[0].score
    #expect(digits.exact == 12)
    #expect(digits.disagreements == 0)
    let tesseract = comparison.rows[1].score
    #expect(tesseract.exact == 1)
    #expect(tesseract.disagreements == 13)
    #expect(comparison.rows[2].score.exact == 0)
    #expect(!comparison.rows[2].voted)
    #expect(comparison.rows[3].score.exact == 12)

    let pair = comparison.pairs.first { $0.first == "digits" && $0.second == "tess" }!
    #expect(pair.readings == 13)
    #expect(pair.test == PairedComparison(onlyFirst: 12, onlySecond: 1))
    #expect(pair.statement.hasPrefix("digits reads better than tess, a significant difference"))
    // One reading only: no verdict.
    let few = comparison.pairs.first { $0.first == "digits" && $0.second == "new" }!
    #expect(few.readings == 1)
    #expect(few.statement.contains("no significant difference yet"))
  }
}
