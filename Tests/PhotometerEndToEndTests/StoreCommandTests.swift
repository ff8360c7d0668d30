import Foundation
import PhotometerClient
import PhotometerProtocol
import Synchronization
import TestSupport
import Testing

/// The meter store through the `photometer` command and the host process.
@Suite struct StoreCommandTests {
  let database = temporaryDatabasePath()
  let photo: String
  let plugins: String

  init() throws {
    photo = try writeTemporaryFile("gas.png", TestImages.png(7, width: 320, height: 240))
    plugins = try writePluginsFile(
      #"{"plugins": [{"name": "exact", "command": ["photometer-testplugin"], "roles": ["identify"], "options": {"roles": "identify"}}]}"#
    )
  }

  func run(_ arguments: [String]) async throws -> CommandOutput {
    try await runCommand(Products.executable("photometer"), arguments + ["--db", database, "--plugins", plugins])
  }

  @Test func registersAMeterStoresReadingsAndListsThem() async throws {
    #expect(
      try await run(["meter", "add", "Gas", "--reference", photo, "--kind", "gas", "--digits", "8", "--decimals", "3"])
        .status
        == 0)
    #expect(try await run(["reading", "add", "Gas", "01234.567", "--at", "2026-11-01T08:00:00Z"]).status == 0)
    #expect(try await run(["reading", "add", "gas", "01240.1", "--at", "2026-11-10T08:00:00Z"]).status == 0)
    let listed = try await run(["readings", "Gas", "--unit", "L", "--json"])
    #expect(listed.status == 0)
    let lines = try listed.lines.map {
      try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    #expect(lines.map { $0["value"] as? String } == ["1234567", "1240100"])
    #expect(lines.map { $0["as_read"] as? String } == ["01234.567", "01240.1"])
    let csv = try await run(["readings", "Gas", "--csv"])
    #expect(csv.lines.first == "id,meter,taken_at,value,unit,as_read,read_unit,source,confidence,verified")
    #expect(csv.lines.count == 3)
    let meters = try await run(["meter", "list", "--json"])
    #expect(meters.lines.count == 1 && meters.lines[0].contains(#""readings":2"#))
  }

  @Test func aDateAloneEndsASpanAtTheEndOfThatDay() async throws {
    #expect(try await run(["meter", "add", "Gas", "--reference", photo, "--kind", "gas"]).status == 0)
    #expect(try await run(["reading", "add", "Gas", "1", "--at", "2026-11-01 08:00"]).status == 0)
    #expect(try await run(["reading", "add", "Gas", "2", "--at", "2026-11-02 08:00"]).status == 0)
    #expect(try await run(["readings", "Gas", "--to", "2026-11-01", "--json"]).lines.count == 1)
    #expect(try await run(["readings", "Gas", "--from", "2026-11-02", "--json"]).lines.count == 1)
    #expect(try await run(["readings", "Gas", "--to", "2026-11-01 07:59", "--json"]).lines.isEmpty)
  }

  @Test func badInputIsRefusedWithAReasonAndChangesNothing() async throws {
    #expect(try await run(["meter", "add", "Gas", "--reference", photo, "--kind", "gas"]).status == 0)
    let cases: [([String], String)] = [
      (["meter", "add", "GAS", "--reference", photo], "already exists"),
      (["meter", "add", "Water", "--reference", "/nonexistent.png"], "cannot read image"),
      (["reading", "add", "Nope", "5"], "no meter is named 'Nope'"),
      (["reading", "add", "Gas", "five"], "'five' is not a number"),
      (["reading", "add", "Gas", "5", "--at", "2099-01-01"], "in the future"),
      (["reading", "add", "Gas", "5", "--unit", "kWh"], "not a unit for a gas meter"),
      (["meter", "show", "Nope"], "no meter is named"),
      (["reading", "delete", "42"], "no reading has the id 42"),
    ]
    for (arguments, reason) in cases {
      let output = try await run(arguments)
      #expect(output.status == 1, "\(arguments)")
      #expect(output.standardError.contains(reason), "\(arguments): \(output.standardError)")
    }
    let bad = try writeTemporaryFile("bad.png", Array("not an image".utf8))
    let refused = try await run(["meter", "add", "Water", "--reference", bad])
    #expect(refused.status == 1 && refused.standardError.contains("not a JPEG, PNG"))
    #expect(try await run(["readings", "Gas", "--json"]).lines.isEmpty)
    #expect(try await run(["meter", "list", "--json"]).lines.count == 1)
  }

  @Test func removesAMeterWithReadingsOnlyWhenTold() async throws {
    #expect(try await run(["meter", "add", "Gas", "--reference", photo, "--kind", "gas"]).status == 0)
    #expect(try await run(["reading", "add", "Gas", "1"]).status == 0)
    let refused = try await run(["meter", "remove", "Gas"])
    #expect(refused.status == 1 && refused.standardError.contains("--with-readings"))
    #expect(try await run(["meter", "remove", "Gas", "--with-readings"]).standardOutput.contains("1 reading(s)"))
  }

  @Test func aTypedValueACountingMeterCannotShowNeedsForce() async throws {
    #expect(
      try await run(["meter", "add", "Water", "--reference", photo, "--kind", "water", "--max-rate", "2"]).status == 0)
    #expect(try await run(["reading", "add", "Water", "9082.25", "--at", "2026-11-10 08:00"]).status == 0)
    #expect(try await run(["reading", "add", "Water", "9090", "--at", "2026-11-20 08:00"]).status == 0)
    let cases: [([String], String)] = [
      (["9000", "--at", "2026-11-12 08:00"], "below the reading before it (9082.25 m3"),
      (["9095", "--at", "2026-11-12 08:00"], "above the reading after it (9090 m3"),
      (["9089", "--at", "2026-11-10 09:00"], "more than meter 'Water''s maximum of 2.0 m3 an hour"),
    ]
    for (arguments, reason) in cases {
      let refused = try await run(["reading", "add", "Water"] + arguments)
      #expect(refused.status == 1, "\(arguments)")
      #expect(refused.standardError.contains(reason), "\(arguments): \(refused.standardError)")
      #expect(refused.standardError.contains("--force"))
    }
    #expect(try await run(["readings", "Water", "--json"]).lines.count == 2)
    #expect(try await run(["reading", "add", "Water", "9085", "--at", "2026-11-12 08:00"]).status == 0)
    let forced = try await run(["reading", "add", "Water", "9000", "--at", "2026-11-13 08:00", "--force"])
    #expect(forced.status == 0 && forced.standardOutput.contains("forced past the counting checks"))
    let stored = try await run(["readings", "Water", "--json"]).lines
    #expect(stored.map { $0.contains(#""forced":true"#) } == [false, false, true, false])
    // The flag survives an export and an import into another database.
    let export = Scratch.folder.appendingPathComponent("export-\(UUID()).csv").path
    #expect(try await run(["export", "-o", export]).status == 0)
    let other = temporaryDatabasePath()
    let imported = try await runCommand(
      Products.executable("photometer"), ["import", export, "--db", other, "--plugins", plugins])
    #expect(imported.status == 0, "\(imported.standardError)")
    let again = try await runCommand(
      Products.executable("photometer"), ["readings", "Water", "--json", "--db", other, "--plugins", plugins])
    #expect(again.lines.map { $0.contains(#""forced":true"#) } == [false, false, true, false])
  }

  @Test func identifiesAPhotoAmongTheRegisteredMeters() async throws {
    #expect(try await run(["meter", "add", "Gas", "--reference", photo, "--kind", "gas"]).status == 0)
    let other = try writeTemporaryFile("water.png", TestImages.png(8))
    #expect(try await run(["meter", "add", "Water", "--reference", other, "--kind", "water"]).status == 0)
    let output = try await run(["identify", photo, "--json"])
    #expect(output.status == 0)
    #expect(output.lines.first?.contains(#""meter":"Gas""#) == true)
  }
}

/// What survives a host killed while it stores readings.
@Suite struct StoreDurabilityTests {
  @Test func everyAcknowledgedReadingSurvivesSIGKILL() async throws {
    let database = temporaryDatabasePath()
    let plugins = try writePluginsFile(#"{"plugins": []}"#)
    let host = try await HostClient.launch(
      executable: Products.executable("photometer-host"), arguments: ["--db", database, "--plugins", plugins])
    _ = try await host.send(
      .addMeter(AddMeterRequest(meter: Meter(name: "Gas", kind: .gas), references: [Image(data: TestImages.png(1))])))
    let acknowledged = AcknowledgedValues()
    let writers = (0..<4).map { writer in
      Task {
        for index in 0..<5_000 {
          let value = "\(writer * 100_000 + index)"
          guard
            (try? await host.send(.addReading(AddReadingRequest(meter: "Gas", value: value, takenAt: 1))))
              != nil
          else { return }
          acknowledged.insert(value)
        }
      }
    }
    _ = await eventually { acknowledged.count >= 1_000 }
    host.process.send(signal: SIGKILL)
    for writer in writers { await writer.value }
    #expect(await host.process.waitForExit() == .signaled(signal: SIGKILL))
    #expect(acknowledged.count >= 1_000)

    let reopened = try await HostClient.launch(
      executable: Products.executable("photometer-host"), arguments: ["--db", database, "--plugins", plugins])
    let stored = try await reopened.send(.listReadings(ListReadingsRequest(meter: "Gas")))
    let values = Set(stored.map(\.value))
    #expect(acknowledged.values.isSubset(of: values))
    #expect(stored.count == values.count)
    try await reopened.shutdown()
    let check = try await runCommand(
      "/usr/bin/env",
      [
        "python3", "-c",
        "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('PRAGMA integrity_check').fetchone()[0])",
        database,
      ])
    #expect(check.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
  }
}

extension StoreDurabilityTests {
  @Test func twoHostsShareOneDatabase() async throws {
    let database = temporaryDatabasePath()
    let plugins = try writePluginsFile(#"{"plugins": []}"#)
    let hosts = try await [0, 1].asyncMap { _ in
      try await HostClient.launch(
        executable: Products.executable("photometer-host"), arguments: ["--db", database, "--plugins", plugins])
    }
    _ = try await hosts[0].send(
      .addMeter(AddMeterRequest(meter: Meter(name: "Gas", kind: .gas), references: [Image(data: TestImages.png(1))])))
    try await withThrowingTaskGroup(of: Void.self) { group in
      for (index, host) in hosts.enumerated() {
        group.addTask {
          for value in 0..<300 {
            let request = AddReadingRequest(meter: "Gas", value: "\(index * 1000 + value)", takenAt: 1)
            _ = try await host.send(.addReading(request))
          }
        }
      }
      try await group.waitForAll()
    }
    let listed = try await hosts[1].send(.listReadings(ListReadingsRequest(meter: "Gas")))
    #expect(listed.count == 600)
    for host in hosts {
      #expect(try await host.shutdown() == .exited(code: 0))
    }
  }
}

extension Array {
  func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
    var result: [T] = []
    for element in self {
      result.append(try await transform(element))
    }
    return result
  }
}

/// Values several tasks add to.
final class AcknowledgedValues: Sendable {
  private let stored = Mutex<Set<String>>([])

  func insert(_ value: String) { stored.withLock { _ = $0.insert(value) } }
  var values: Set<String> { stored.withLock { $0 } }
  var count: Int { stored.withLock { $0.count } }
}

/// Statistics, charts and CSV through the `photometer` command.
@Suite struct ReportCommandTests {
  let database = temporaryDatabasePath()
  let plugins: String

  init() throws {
    plugins = try writePluginsFile(#"{"plugins": []}"#)
  }

  func run(_ arguments: [String], database: String? = nil) async throws -> CommandOutput {
    try await runCommand(
      Products.executable("photometer"), arguments + ["--db", database ?? self.database, "--plugins", plugins])
  }

  func addReadings() async throws {
    let photo = try writeTemporaryFile("gas.png", TestImages.png(3))
    #expect(try await run(["meter", "add", "Gas", "--reference", photo, "--kind", "gas"]).status == 0)
    for (day, value) in [("01", "100"), ("03", "110"), ("08", "135")] {
      #expect(try await run(["reading", "add", "Gas", value, "--at", "2026-11-\(day)T12:00:00Z"]).status == 0)
    }
  }

  @Test func statsSumUpConsumption() async throws {
    try await addReadings()
    let output = try await run(["stats", "Gas", "--by", "month", "--json"])
    #expect(output.status == 0, "\(output.standardError)")
    let line = try #require(output.lines.first)
    #expect(line.contains(#""consumption":35"#))
    #expect(try await run(["stats", "Gas", "--by", "fortnight"]).status != 0)
  }

  @Test func chartsAreSVGFiles() async throws {
    try await addReadings()
    let file = Scratch.folder.appendingPathComponent("photometer-\(UUID().uuidString).svg").path
    func chart(_ arguments: [String]) async throws -> String {
      let output = try await run(["chart"] + arguments + ["-o", file])
      #expect(output.status == 0, "\(output.standardError)")
      return try String(contentsOfFile: file, encoding: .utf8)
    }
    // A counting meter: consumption per period as columns, the readings with --values.
    let daily = try await chart(["Gas"])
    #expect(daily.hasPrefix("<svg") && daily.contains("Gas: consumption per day") && !daily.contains("<polyline"))
    let weekly = try await chart(["Gas", "--by", "week"])
    #expect(weekly.contains("consumption per week"))
    #expect(weekly.components(separatedBy: "<rect x=").count - 1 == 2)
    #expect(try await chart(["Gas", "--values"]).contains("<polyline"))
    // Any other meter: its readings.
    let photo = try writeTemporaryFile("sugar.png", TestImages.png(4))
    #expect(try await run(["meter", "add", "Sugar", "--reference", photo, "--kind", "glucose"]).status == 0)
    #expect(try await run(["reading", "add", "Sugar", "98", "--at", "2026-11-01T08:00:00Z"]).status == 0)
    #expect(try await chart(["Sugar"]).contains("<polyline"))
  }

  @Test func exportAndImportRoundTripExactly() async throws {
    try await addReadings()
    let exported = try await run(["export"])
    #expect(exported.status == 0)
    let file = try writeTemporaryFile("export.csv", Array(exported.standardOutput.utf8))
    let other = temporaryDatabasePath()
    let imported = try await run(["import", file], database: other)
    #expect(imported.standardOutput.contains("Imported 1 meter(s) and 3 reading(s)"))
    #expect(try await run(["export"], database: other).standardOutput == exported.standardOutput)
    let again = try await run(["import", file], database: other)
    #expect(again.status == 1 && again.standardError.contains("already exists"))
  }
}
