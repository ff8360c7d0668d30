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
    #expect(result.flags == [.repaired, .glare])
    #expect(result.meter == "gas")
    #expect(result.confidence <= 0.4)
    #expect(result.summary.hasPrefix("gas: 1234.5 m3 (confidence "))
    #expect(result.summary.hasSuffix(", corrected from 1284.5)"))
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

  @Test func aValueNoRunnerUpMakesPlausibleStaysAndIsFlagged() {
    let decision = ReadDecision(meter: gas, previous: nil, decimals: 1, now: 0)
    let result = decision.decide(voted("123", [("1", 0.9, []), ("2", 0.9, []), ("3", 0.9, [])]), flags: [])
    #expect(result.value == "12.3")
    #expect(result.flags == [.implausible])
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
