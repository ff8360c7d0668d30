import PhotometerProtocol
import PhotometerVoting
import Testing

@Suite struct PlausibilityTests {
  let hour: Int64 = 3_600_000

  func previous(_ value: Double, at time: Int64) -> StoredReading {
    StoredReading(
      id: 1, meter: "gas", value: "\(value)", numeric: value, unit: "m3", takenAt: time, recordedAt: time, source: .ocr)
  }

  func digits(_ symbols: [(String, Double, [(String, Double)])]) -> [Symbol] {
    symbols.map { text, confidence, alternatives in
      Symbol(
        text: text, confidence: confidence, alternatives: alternatives.map { Alternative(text: $0.0, confidence: $0.1) }
      )
    }
  }

  @Test func aCountingMeterNeverGoesDownNorFasterThanItsRate() {
    let meter = Meter(name: "gas", kind: .gas, unit: "m3", digits: 5, decimals: 1, countsUp: true, maxRatePerHour: 2)
    let rule = Plausibility(meter: meter, previous: previous(1234.5, at: 0), now: 10 * hour)
    #expect(rule.allows("12345"))
    #expect(rule.allows("12545"))
    #expect(!rule.allows("12344"))  // down
    #expect(!rule.allows("12546"))  // 20.1 m3 in 10 h, over 2 m3/h
    #expect(!rule.allows("1234"))  // a digit short
  }

  @Test func aDecimalPointTheDisplayShowedStands() {
    let thermometer = Meter(name: "fever", kind: .thermometer, unit: "C", digits: 3)
    let rule = Plausibility(meter: thermometer, previous: nil, now: 0)
    #expect(rule.allows("36.7"))  // three digits, 36.7 C
    #expect(!rule.allows("367"))  // 367 C, with no decimals set
  }

  @Test func medicalValuesStayInTheirPhysicalRange() {
    let glucose = Plausibility(meter: Meter(name: "g", kind: .glucose, unit: "mg/dL"), previous: nil, now: 0)
    #expect(glucose.allows("105"))
    #expect(!glucose.allows("905"))
    let thermometer = Plausibility(
      meter: Meter(name: "t", kind: .thermometer, unit: "C", decimals: 1), previous: nil, now: 0)
    #expect(thermometer.allows("368"))
    #expect(!thermometer.allows("868"))
  }

  @Test func bloodPressureFieldsStayInTheirRanges() {
    #expect(Plausibility.allowsBloodPressure("120/80/70"))
    #expect(Plausibility.allowsBloodPressure("120/80"))
    #expect(!Plausibility.allowsBloodPressure("80/120/70"))  // systolic below diastolic
    #expect(!Plausibility.allowsBloodPressure("720/80/70"))
    #expect(!Plausibility.allowsBloodPressure("120/80/7"))
    #expect(!Plausibility.allowsBloodPressure("120"))
    #expect(!Plausibility.allowsBloodPressure("120//70"))
  }

  /// A monitor blanks its leading places: a leading 0 out of the field's range is the lit digit
  /// with no middle segment (1 or 7) that puts it in range, when only one does.
  @Test func aMonitorFieldsLeadingZeroIsTheDigitItsGhostsHid() {
    #expect(Plausibility.bloodPressureField("02", range: Plausibility.diastolic) == "72")
    #expect(Plausibility.bloodPressureField("07", range: Plausibility.pulse) == "77")
    #expect(Plausibility.bloodPressureField("018", range: Plausibility.systolic) == "118")
    // A blank leading place read as 0 when told 3 digits, and a point: in range without it.
    #expect(Plausibility.bloodPressureField("072", range: Plausibility.diastolic) == "72")
    #expect(Plausibility.bloodPressureField("7.2", range: Plausibility.diastolic) == "72")
    #expect(Plausibility.bloodPressureField("02") == "2")
    // Both 15 and 75 in range, or neither 19 nor 79 in it: the value stays as read.
    #expect(Plausibility.bloodPressureField("05", range: 10...99) == "5")
    #expect(Plausibility.bloodPressureField("09", range: Plausibility.diastolic.lowerBound...70) == "9")
    #expect(Plausibility.bloodPressure("185/02/62") == "185/72/62")
    #expect(Plausibility.bloodPressure("185/02") == "185/72")
    #expect(Plausibility.bloodPressure("120/80/7") == nil)
    #expect(Plausibility.bloodPressure("120/80/70/60") == nil)
  }

  @Test func repairTakesTheLikeliestPlausibleRunnerUp() {
    let meter = Meter(name: "gas", kind: .gas, unit: "m3", digits: 4, countsUp: true)
    let rule = Plausibility(meter: meter, previous: previous(1280, at: 0), now: hour)
    // Read 1230 (below the last 1280): the third digit's runner-up 8 makes it plausible.
    let repaired = rule.repair(
      digits([("1", 0.99, []), ("2", 0.98, []), ("3", 0.6, [("8", 0.35)]), ("0", 0.9, [("6", 0.05)])]))
    #expect(repaired?.value == "1280")
    #expect(rule.repair(digits([("1", 0.9, []), ("0", 0.9, [])])) == nil)
  }
}

@Suite struct StreamConvergenceTests {
  @Test func aStreamIsFinalAfterThreeConfidentEqualValues() {
    var streams = StreamConvergence()
    #expect(streams.observe("cam", value: "123", confidence: 0.9) == (1, false))
    #expect(streams.observe("cam", value: "128", confidence: 0.9) == (2, false))
    #expect(streams.observe("cam", value: "123", confidence: 0.9) == (3, false))
    #expect(streams.observe("cam", value: "123", confidence: 0.3) == (4, false))  // not trusted: starts over
    #expect(streams.observe("cam", value: "123", confidence: 0.9) == (5, false))
    #expect(streams.observe("other", value: "9", confidence: 0.9) == (1, false))
    #expect(streams.observe("cam", value: "123", confidence: 0.8) == (6, false))
    #expect(streams.observe("cam", value: "123", confidence: 0.7) == (7, true))
    #expect(streams.observe("cam", value: "123", confidence: 0.7) == (1, false))  // a final stream starts over
  }

  @Test func onlySoManyStreamsAreKept() {
    var streams = StreamConvergence()
    for index in 0...StreamConvergence.maxStreams {
      _ = streams.observe("s\(index)", value: "1", confidence: 1)
    }
    // The oldest, s0, was dropped: its next frame is its first again.
    #expect(streams.observe("s0", value: "1", confidence: 1).frames == 1)
    #expect(streams.observe("s\(StreamConvergence.maxStreams)", value: "1", confidence: 1).frames == 2)
  }
}
