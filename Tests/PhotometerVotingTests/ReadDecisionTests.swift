import PhotometerProtocol
import PhotometerVoting
import Testing

@Suite struct ReadDecisionTests {
  let hour: Int64 = 3_600_000
  let gas = Meter(name: "gas", kind: .gas, unit: "m3", digits: 5, decimals: 1, countsUp: true, maxRatePerHour: 2)

  func voted(_ value: String, _ symbols: [(String, Double, [(String, Double)])], flags: [ReadFlag] = []) -> ReadResult {
    ReadResult(
      value: value, confidence: symbols.map(\.1).min() ?? 0, engines: [], flags: flags, summary: "",
      digits: symbols.map { text, confidence, alternatives in
        Symbol(
          text: text, confidence: confidence,
          alternatives: alternatives.map { Alternative(text: $0.0, confidence: $0.1) })
      })
  }

  @Test func anImplausibleValueIsRepairedFromTheRunnersUpAndFormatted() {
    let previous = StoredReading(
      id: 1, meter: "gas", value: "1234.5", numeric: 1234.5, unit: "m3", takenAt: 0, recordedAt: 0, source: .ocr)
    let decision = ReadDecision(meter: gas, previous: previous, decimals: 1, now: hour)
    // 12845 is 161 m3 up in an hour; the runner-up 3 at the third place makes 1234.5.
    let result = decision.decide(
      voted("12845", [("1", 0.99, []), ("2", 0.99, []), ("8", 0.6, [("3", 0.4)]), ("4", 0.99, []), ("5", 0.99, [])]),
      flags: [.glare])
    #expect(result.value == "1234.5")
    #expect(result.unrepairedValue == "1284.5")
    // Repaired at most 0.4 sure: under the vote's threshold, so flagged so as well.
    #expect(result.flags == [.repaired, .lowConfidence, .glare])
    #expect(result.meter == "gas")
    #expect(result.confidence <= 0.4)
    #expect(result.summary.hasPrefix("gas: 1234.5 m3 (confidence "))
    #expect(result.summary.hasSuffix(", corrected from 1284.5)"))
  }

  /// A water meter with four dials (wheels 00000, dials 0.0000): a half-turned last wheel named
  /// short of the last reading is moved, the dials' digits kept, to the least advance they allow.
  @Test func aDialMetersWholeNumberReadShortOfItsLastReadingMovesToTheLeastAdvance() throws {
    let water = Meter(name: "water", kind: .water, unit: "m3", digits: 9, decimals: 4, countsUp: true)
    let previous = StoredReading(
      id: 1, meter: "water", value: "04426.1000", numeric: 4426.1, unit: "m3", takenAt: 0, recordedAt: 0,
      source: .ocr)
    let symbols = "044204419".map { (String($0), 0.9, [(String, Double)]()) }
    let dials = ReadDecision(meter: water, previous: previous, decimals: 4, now: 24 * hour, finerPlaces: 4)
    let moved = dials.decide(voted("044204419", symbols), flags: [])
    #expect(moved.value == "04426.4419")
    #expect(moved.unrepairedValue == "04420.4419")
    #expect(moved.flags == [.repaired, .lowConfidence])
    // 04426 to 04429 are plausible: which one is a guess, at most a quarter sure.
    #expect(moved.confidence <= 0.25)

    // With a maximum rate of 0.1 m3 an hour only 04426 to 04428 fit the day since.
    var capped = water
    capped.maxRatePerHour = 0.1
    let fewer = ReadDecision(meter: capped, previous: previous, decimals: 4, now: 24 * hour, finerPlaces: 4)
    let three = fewer.decide(voted("044204419", symbols), flags: [])
    #expect(three.value == "04426.4419" && abs(three.confidence - 1.0 / 3) < 1e-9)

    // Read above the most the meter can have advanced: the nearest below it.
    let over = fewer.decide(voted("044324419", "044324419".map { (String($0), 0.9, []) }), flags: [])
    #expect(over.value == "04428.4419")

    // Not within a turn of the last wheel, or its places not measured: no whole number moves.
    let far = dials.decide(voted("044004419", "044004419".map { (String($0), 0.9, []) }), flags: [])
    #expect(far.value == "04400.4419" && far.flags == [.implausible])
    let unmeasured = ReadDecision(meter: water, previous: previous, decimals: 4, now: 24 * hour)
    #expect(unmeasured.decide(voted("044204419", symbols), flags: []).flags == [.implausible])

    // A plausible value stands.
    let right = dials.decide(voted("044264419", "044264419".map { (String($0), 0.9, []) }), flags: [])
    #expect(right.value == "04426.4419" && right.flags.isEmpty && right.confidence == 0.9)
  }

  /// A monitor's diastolic read "02" over ghost segments is shown as 72 and flagged repaired; a
  /// blank leading place read as 0 ("072") is no repair.
  @Test func aMonitorFieldsHiddenLeadingDigitIsARepair() {
    let ghosted = ReadDecision.monitorField(
      voted("02", [("0", 0.9, [("9", 0.05)]), ("2", 0.99, [])]), range: Plausibility.diastolic)
    #expect(ghosted.value == "72")
    #expect(ghosted.unrepairedValue == "02")
    #expect(ghosted.flags == [.repaired])
    let blank = ReadDecision.monitorField(
      voted("072", [("0", 0.9, []), ("7", 0.9, []), ("2", 0.9, [])]), range: Plausibility.diastolic)
    #expect(blank.value == "72")
    #expect(blank.unrepairedValue.isEmpty && blank.flags.isEmpty)
  }

  /// A value that became unsure after the vote (its wheels read surely, a dial that disagrees with
  /// the next one lowering the chain's confidence) is flagged as the client sees its confidence.
  @Test func aValueLeftUnsureAfterTheVoteIsFlaggedLowConfidence() {
    let water = Meter(name: "water", kind: .water, unit: "m3", digits: 9, decimals: 4, countsUp: false)
    let decision = ReadDecision(meter: water, previous: nil, decimals: 4, now: 0, finerPlaces: 4)
    var chained = voted("139502227", "139502227".map { (String($0), 0.95, []) }, flags: [.blur])
    chained.confidence = 0.1
    let unsure = decision.decide(chained, flags: [.glare])
    #expect(unsure.value == "13950.2227" && unsure.confidence == 0.1)
    #expect(unsure.flags == [.blur, .lowConfidence, .glare])
    chained.confidence = 0.5
    #expect(decision.decide(chained, flags: []).flags == [.blur])
  }

  @Test func aValueNoRunnerUpMakesPlausibleStaysAndIsFlagged() {
    let decision = ReadDecision(meter: gas, previous: nil, decimals: 1, now: 0)
    let result = decision.decide(voted("123", [("1", 0.9, []), ("2", 0.9, []), ("3", 0.9, [])]), flags: [])
    #expect(result.value == "12.3")
    #expect(result.flags == [.implausible])
  }

  /// Told what the photo shows but no meter, a value no such device shows is flagged, as a
  /// registered meter's is: a blood pressure whose systolic is under its diastolic (a diastolic
  /// taken for the systolic), a glucose meter's 4984, a thermometer's 372 without its point.
  @Test func withoutAMeterAValueItsKindCannotShowIsFlagged() {
    func decided(_ value: String, _ kind: MeterKind) -> [ReadFlag] {
      ReadDecision(meter: nil, previous: nil, decimals: 0, now: 0, kind: kind)
        .decide(voted(value, [("1", 0.9, [])]), flags: []).flags
    }
    #expect(decided("57/123/47", .bloodPressure) == [.implausible])
    #expect(decided("123/57/47", .bloodPressure) == [])
    #expect(decided("4984", .glucose) == [.implausible])
    #expect(decided("112", .glucose) == [])
    #expect(decided("372", .thermometer) == [.implausible])
    #expect(decided("37.2", .thermometer) == [])
    #expect(decided("00530", .water) == [])
  }

  @Test func withoutAMeterTheValueIsOnlyFormattedAndFlagsAreNotRepeated() {
    let decision = ReadDecision(meter: nil, previous: nil, decimals: 0, now: 0)
    let result = decision.decide(
      voted("36.7", [("3", 0.9, []), ("6", 0.9, []), ("7", 0.9, [])], flags: [.blur]), flags: [.blur, .glare])
    #expect(result.value == "36.7")
    #expect(result.flags == [.blur, .glare])
    #expect(result.summary == "Reading: 36.7 (confidence 90%)")
    let blank = decision.decide(voted("", [], flags: [.lowConfidence]), flags: [])
    #expect(blank.summary == "Reading: no reading (low-confidence)")
  }
}
