import Foundation
import PhotometerProtocol
import PhotometerStore
import TestSupport
import Testing

@Suite struct StatsAndTransferTests {
  let store: MeterStore
  let day: Int64 = 86_400_000
  /// 2026-11-02T00:00Z, a Monday.
  let monday: Int64 = 1_793_577_600_000

  init() async throws {
    store = try MeterStore(path: temporaryDatabasePath())
    let photo = Image(data: TestImages.png(1))
    _ = try await store.addMeter(Meter(name: "Gas", kind: .gas, countsUp: true), references: [photo])
    _ = try await store.addMeter(Meter(name: "Sugar", kind: .glucose), references: [Image(data: TestImages.png(2))])
  }

  func add(_ meter: String, _ value: String, at time: Int64, source: ReadingSource = .manual) async throws {
    _ = try await store.addReading(AddReadingRequest(meter: meter, value: value, takenAt: time, source: source))
  }

  /// A fixed-seed fuzz of import: an export with bytes changed, dropped or added (CSV syntax,
  /// formula characters, digits, invalid UTF-8) either loads whole or changes nothing.
  @Test func importOfAMangledExportLoadsWholeOrChangesNothing() async throws {
    try await add("Gas", "01234.567", at: monday)
    try await add("Gas", "01240.5", at: monday + day, source: .ocr)
    try await add("Sugar", "97", at: monday)
    let csv = Array(try await store.exportCSV().csv.utf8)
    let interesting = Array(",\"\n\r=-+@'0123456789.eE".utf8) + [0, 0xFF, 0xC3]
    var random = SplitMix64(seed: 22)
    var loaded = 0
    for round in 0..<100 {
      var bytes = csv
      for _ in 0..<Int.random(in: 1...4, using: &random) {
        let at = Int.random(in: 0..<bytes.count, using: &random)
        switch Int.random(in: 0..<3, using: &random) {
        case 0: bytes[at] = interesting.randomElement(using: &random)!
        case 1: bytes.remove(at: at)
        default: bytes.insert(interesting.randomElement(using: &random)!, at: at)
        }
      }
      let copy = try MeterStore(path: temporaryDatabasePath())
      do {
        let imported = try await copy.importCSV(String(decoding: bytes, as: UTF8.self))
        #expect(try await copy.meters().count == imported.meters, "round \(round)")
        loaded += 1
      } catch {
        #expect(try await copy.meters().isEmpty, "round \(round): \(error)")
      }
      #expect(try await copy.integrityCheck() == "ok")
    }
    // Some changes leave a loadable file (a digit of a value), most do not.
    #expect(loaded > 0 && loaded < 100, "\(loaded) of 100 loaded")
  }

  @Test func everyImportErrorNamesItsLine() async throws {
    try await add("Gas", "100", at: monday)
    let lines = try await store.exportCSV().csv.split(separator: "\n", omittingEmptySubsequences: false)
      .map(String.init)
    let index = try #require(lines.firstIndex { $0.hasPrefix("reading,Gas,") })
    for (field, bad) in [(",100,", ",abc,"), (",m3,", ",kWh,")] {
      var copyLines = lines
      copyLines[index] = lines[index].replacingOccurrences(of: field, with: bad)
      let copy = try MeterStore(path: temporaryDatabasePath())
      do {
        _ = try await copy.importCSV(copyLines.joined(separator: "\n"))
        Issue.record("imported \(bad)")
      } catch {
        #expect(error.description.hasPrefix("CSV line \(index + 1): "), "\(error)")
      }
    }
  }

  @Test func consumptionPerDayIsInterpolatedBetweenReadings() async throws {
    // 100 m3 at Monday noon, 124 m3 at Wednesday noon: 0.5 m3 an hour.
    try await add("Gas", "100", at: monday + day / 2)
    try await add("Gas", "124", at: monday + 2 * day + day / 2)
    let stats = try await store.stats(StatsRequest(meter: "Gas", period: .day, timeZone: "UTC"))
    #expect(stats.counting)
    #expect(stats.rows.map(\.label) == ["2026-11-02", "2026-11-03", "2026-11-04"])
    #expect(stats.rows.map(\.consumption) == [6, 12, 6])
    #expect(stats.rows.map(\.count) == [1, 0, 1])
  }

  @Test func periodsFollowTheTimeZone() async throws {
    try await add("Gas", "100", at: monday + day / 2)
    try await add("Gas", "124", at: monday + 2 * day + day / 2)
    let stats = try await store.stats(StatsRequest(meter: "Gas", period: .day, timeZone: "Pacific/Auckland"))
    #expect(stats.rows.first?.label == "2026-11-03")
    #expect(abs(stats.rows.reduce(0) { $0 + $1.consumption } - 24) < 1e-9)
  }

  @Test func weeksStartOnMondayAndMonthsOnTheFirst() async throws {
    try await add("Gas", "10", at: monday - day)  // Sunday, in week 44
    try await add("Gas", "17", at: monday + 6 * day)  // Sunday, in week 45
    let weeks = try await store.stats(StatsRequest(meter: "Gas", period: .week, timeZone: "UTC"))
    #expect(weeks.rows.map(\.label) == ["2026-W44", "2026-W45"])
    #expect(weeks.rows.map(\.consumption) == [1, 6])
    let months = try await store.stats(StatsRequest(meter: "Gas", period: .month, unit: "L", timeZone: "UTC"))
    #expect(months.rows.map(\.label) == ["2026-11"])
    #expect(months.rows.first?.consumption == 7000)
  }

  @Test func medicalMetersGetMinimumMaximumAndMean() async throws {
    for (hours, value) in [(8, "90"), (12, "150"), (20, "120")] {
      try await add("Sugar", value, at: monday + Int64(hours) * 3_600_000)
    }
    let stats = try await store.stats(StatsRequest(meter: "Sugar", period: .day, timeZone: "UTC"))
    #expect(!stats.counting)
    #expect(stats.rows.count == 1)
    #expect(stats.rows[0].min == 90 && stats.rows[0].max == 150 && stats.rows[0].mean == 120)
    let converted = try await store.stats(StatsRequest(meter: "Sugar", period: .day, unit: "mmol/L", timeZone: "UTC"))
    #expect(abs(converted.rows[0].mean - 120 / 18.016) < 1e-9)
  }

  @Test func refusesAnUnknownTimeZoneAndTooManyPeriods() async throws {
    try await add("Gas", "1", at: 1)
    try await add("Gas", "2", at: monday)
    await #expect(throws: StoreError.self) {
      try await store.stats(StatsRequest(meter: "Gas", timeZone: "Mars/Olympus"))
    }
    await #expect(throws: StoreError.self) {
      try await store.stats(StatsRequest(meter: "Gas", period: .day, timeZone: "UTC"))
    }
  }

  /// Wire values at Int64's ends once trapped on `to + 1` and made the period loop run for ever.
  @Test func statsOverTheWidestRangeCoverOnlyTheReadings() async throws {
    try await add("Gas", "100", at: monday)
    try await add("Gas", "103", at: monday + 3 * day)
    for (from, to) in [(Int64.min, Int64.max), (Int64.max, Int64.min), (MeterStore.readingTimes.lowerBound, nil)] {
      let stats = try await store.stats(StatsRequest(meter: "Gas", period: .day, from: from, to: to, timeZone: "UTC"))
      #expect(stats.rows.map(\.consumption) == (from < 0 ? [1, 1, 1] : []), "\(from)...\(String(describing: to))")
    }
  }

  @Test func aSparseMeterSkipsTheEmptyPeriods() async throws {
    try await add("Sugar", "90", at: 0)
    try await add("Sugar", "110", at: monday)
    let stats = try await store.stats(StatsRequest(meter: "Sugar", period: .day, timeZone: "UTC"))
    #expect(stats.rows.map(\.label) == ["1970-01-01", "2026-11-02"])
  }

  @Test func readingTimesOutsideTheYearsOneTo9999AreRefused() async throws {
    for time in [Int64.min, Int64.max, 999_999_999_999_999_999, MeterStore.readingTimes.lowerBound - 1] {
      await #expect(throws: StoreError.self) { try await add("Gas", "1", at: time) }
    }
    try await add("Gas", "1", at: MeterStore.readingTimes.lowerBound)
    try await add("Gas", "1", at: monday)
    let csv = try await store.exportCSV().csv
    let copy = try MeterStore(path: temporaryDatabasePath())
    for time in ["9223372036854775807", "999999999999999999", "-9223372036854775808"] {
      let extreme = csv.replacingOccurrences(of: ",\(monday),", with: ",\(time),")
      #expect(extreme != csv)
      do {
        _ = try await copy.importCSV(extreme)
        Issue.record("imported a reading at \(time)")
      } catch {
        #expect(error.description.contains("taken_at"), "\(error)")
      }
    }
    #expect(try await copy.meters().isEmpty)
  }

  @Test func exportThenImportGivesTheSameStoreBack() async throws {
    try await add("Gas", "01234.567", at: monday)
    try await add("Gas", "01240,1", at: monday + day, source: .ocr)
    try await add("Sugar", "97", at: monday)
    let engines = [
      EngineAnswer(
        plugin: "ocr", version: "5.3", outcome: .success(EngineReading(text: "12", confidence: 0.25)),
        milliseconds: 12.5, voted: true),
      EngineAnswer(
        plugin: "templ", version: "1", outcome: .failure(ErrorReply(.timeout, "slow, \"very\"")), milliseconds: 900,
        voted: false),
    ]
    let ocr = try await store.addReading(
      AddReadingRequest(
        meter: "Gas", value: "01250.000", takenAt: monday + 2 * day, source: .ocr, confidence: 0.83, engines: engines,
        crop: TestImages.png(3, width: 8, height: 8)))
    _ = try await store.confirmReading(id: ocr.id, value: "01250.001")
    _ = try await store.editMeter(
      EditMeterRequest(
        name: "Gas",
        changes: Meter(name: "Gas", kind: .gas, range: 0...99_999.5, notes: "line one\nline \"two\", three"),
        fields: ["notes", "range"]))
    let first = try await store.exportCSV()
    #expect(first.meters == 2 && first.readings == 4)

    let copy = try MeterStore(path: temporaryDatabasePath())
    let imported = try await copy.importCSV(first.csv)
    #expect(imported.meters == 2 && imported.readings == 4)
    #expect(try await copy.exportCSV().csv == first.csv)
    let readings = try await copy.readings(ListReadingsRequest(meter: "Gas", withCrops: true))
    #expect(readings.last?.engines.map(\.plugin) == ["ocr", "templ"])
    #expect(readings.last?.crop == TestImages.png(3, width: 8, height: 8))
    #expect(readings.last?.source == .corrected && readings.last?.verified == true)
    #expect(try await copy.meter(named: "Gas", includePhotos: true).references.first?.image?.data == TestImages.png(1))
  }

  @Test func anExportRunsNoFormulaAndImportsBackAsItWas() async throws {
    let name = "=HYPERLINK(\"http://x\";\"Gas\")"
    _ = try await store.addMeter(Meter(name: name, kind: .water), references: [Image(data: TestImages.png(3))])
    try await add(name, "-1", at: monday)
    let csv = try await store.exportCSV().csv
    #expect(csv.contains("\"'=HYPERLINK(") && !csv.contains(",=") && !csv.contains("\"="))
    let copy = try MeterStore(path: temporaryDatabasePath())
    _ = try await copy.importCSV(csv)
    #expect(try await copy.meters().map(\.name).contains(name))
    #expect(try await copy.exportCSV().csv == csv)
  }

  @Test func aBadImportChangesNothing() async throws {
    try await add("Gas", "1", at: monday)
    let csv = try await store.exportCSV().csv
    await #expect(throws: StoreError.self) { try await store.importCSV(csv) }  // Its meters exist already.
    let copy = try MeterStore(path: temporaryDatabasePath())
    let broken = csv.replacingOccurrences(of: ",manual,", with: ",typed,")
    await #expect(throws: StoreError.self) { try await copy.importCSV(broken) }
    #expect(try await copy.meters().isEmpty)
    await #expect(throws: StoreError.self) { try await copy.importCSV("not,a,photometer,export\n") }
  }
}
