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

  init() throws {
    store = try MeterStore(path: temporaryDatabasePath())
    let photo = Image(data: TestImages.png(1))
    _ = try store.addMeter(Meter(name: "Gas", kind: .gas, countsUp: true), references: [photo])
    _ = try store.addMeter(Meter(name: "Sugar", kind: .glucose), references: [Image(data: TestImages.png(2))])
  }

  func add(_ meter: String, _ value: String, at time: Int64, source: ReadingSource = .manual) throws {
    _ = try store.addReading(AddReadingRequest(meter: meter, value: value, takenAt: time, source: source))
  }

  @Test func consumptionPerDayIsInterpolatedBetweenReadings() throws {
    // 100 m3 at Monday noon, 124 m3 at Wednesday noon: 0.5 m3 an hour.
    try add("Gas", "100", at: monday + day / 2)
    try add("Gas", "124", at: monday + 2 * day + day / 2)
    let stats = try store.stats(StatsRequest(meter: "Gas", period: .day, timeZone: "UTC"))
    #expect(stats.counting)
    #expect(stats.rows.map(\.label) == ["2026-11-02", "2026-11-03", "2026-11-04"])
    #expect(stats.rows.map(\.consumption) == [6, 12, 6])
    #expect(stats.rows.map(\.count) == [1, 0, 1])
  }

  @Test func periodsFollowTheTimeZone() throws {
    try add("Gas", "100", at: monday + day / 2)
    try add("Gas", "124", at: monday + 2 * day + day / 2)
    let stats = try store.stats(StatsRequest(meter: "Gas", period: .day, timeZone: "Pacific/Auckland"))
    #expect(stats.rows.first?.label == "2026-11-03")
    #expect(abs(stats.rows.reduce(0) { $0 + $1.consumption } - 24) < 1e-9)
  }

  @Test func weeksStartOnMondayAndMonthsOnTheFirst() throws {
    try add("Gas", "10", at: monday - day)  // Sunday, in week 44
    try add("Gas", "17", at: monday + 6 * day)  // Sunday, in week 45
    let weeks = try store.stats(StatsRequest(meter: "Gas", period: .week, timeZone: "UTC"))
    #expect(weeks.rows.map(\.label) == ["2026-W44", "2026-W45"])
    #expect(weeks.rows.map(\.consumption) == [1, 6])
    let months = try store.stats(StatsRequest(meter: "Gas", period: .month, unit: "L", timeZone: "UTC"))
    #expect(months.rows.map(\.label) == ["2026-11"])
    #expect(months.rows.first?.consumption == 7000)
  }

  @Test func medicalMetersGetMinimumMaximumAndMean() throws {
    for (hours, value) in [(8, "90"), (12, "150"), (20, "120")] {
      try add("Sugar", value, at: monday + Int64(hours) * 3_600_000)
    }
    let stats = try store.stats(StatsRequest(meter: "Sugar", period: .day, timeZone: "UTC"))
    #expect(!stats.counting)
    #expect(stats.rows.count == 1)
    #expect(stats.rows[0].min == 90 && stats.rows[0].max == 150 && stats.rows[0].mean == 120)
    let converted = try store.stats(StatsRequest(meter: "Sugar", period: .day, unit: "mmol/L", timeZone: "UTC"))
    #expect(abs(converted.rows[0].mean - 120 / 18.016) < 1e-9)
  }

  @Test func refusesAnUnknownTimeZoneAndTooManyPeriods() throws {
    try add("Gas", "1", at: 1)
    try add("Gas", "2", at: monday)
    #expect(throws: StoreError.self) { try store.stats(StatsRequest(meter: "Gas", timeZone: "Mars/Olympus")) }
    #expect(throws: StoreError.self) { try store.stats(StatsRequest(meter: "Gas", period: .day, timeZone: "UTC")) }
  }

  @Test func exportThenImportGivesTheSameStoreBack() throws {
    try add("Gas", "01234.567", at: monday)
    try add("Gas", "01240,1", at: monday + day, source: .ocr)
    try add("Sugar", "97", at: monday)
    let engines = [
      EngineAnswer(
        plugin: "ocr", version: "5.3", outcome: .success(EngineReading(text: "12", confidence: 0.25)),
        milliseconds: 12.5, voted: true),
      EngineAnswer(
        plugin: "templ", version: "1", outcome: .failure(ErrorReply(.timeout, "slow, \"very\"")), milliseconds: 900,
        voted: false),
    ]
    let ocr = try store.addReading(
      AddReadingRequest(
        meter: "Gas", value: "01250.000", takenAt: monday + 2 * day, source: .ocr, confidence: 0.83, engines: engines,
        crop: [1, 2, 3]))
    _ = try store.confirmReading(id: ocr.id, value: "01250.001")
    _ = try store.editMeter(
      EditMeterRequest(
        name: "Gas",
        changes: Meter(name: "Gas", kind: .gas, range: 0...99_999.5, notes: "line one\nline \"two\", three"),
        fields: ["notes", "range"]))
    let first = try store.exportCSV()
    #expect(first.meters == 2 && first.readings == 4)

    let copy = try MeterStore(path: temporaryDatabasePath())
    let imported = try copy.importCSV(first.csv)
    #expect(imported.meters == 2 && imported.readings == 4)
    #expect(try copy.exportCSV().csv == first.csv)
    let readings = try copy.readings(ListReadingsRequest(meter: "Gas"))
    #expect(readings.last?.engines.map(\.plugin) == ["ocr", "templ"])
    #expect(readings.last?.crop == [1, 2, 3])
    #expect(readings.last?.source == .corrected && readings.last?.verified == true)
    #expect(try copy.meter(named: "Gas", includePhotos: true).references.first?.image?.data == TestImages.png(1))
  }

  @Test func aBadImportChangesNothing() throws {
    try add("Gas", "1", at: monday)
    let csv = try store.exportCSV().csv
    #expect(throws: StoreError.self) { try store.importCSV(csv) }  // Its meters exist already.
    let copy = try MeterStore(path: temporaryDatabasePath())
    let broken = csv.replacingOccurrences(of: ",manual,", with: ",typed,")
    #expect(throws: StoreError.self) { try copy.importCSV(broken) }
    #expect(try copy.meters().isEmpty)
    #expect(throws: StoreError.self) { try copy.importCSV("not,a,photometer,export\n") }
  }
}
