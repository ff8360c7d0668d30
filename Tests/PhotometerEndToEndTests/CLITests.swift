import Foundation
import PhotometerProtocol
import PhotometerVision
import PhotometerVoting
import TestSupport
import Testing

/// The `photometer` command as a user runs it.
@Suite struct CLITests {
  let photometer = Products.executable("photometer")
  let plugins: String
  let gas: String
  let water: String
  let database = temporaryDatabasePath()

  init() throws {
    plugins = try writePluginsFile(
      """
      {"plugins": [
        {"name": "reader", "command": ["photometer-testplugin"], "roles": ["read", "identify"],
         "options": {"text": "04711", "confidence": "0.8"}},
        {"name": "shadow", "command": ["photometer-testplugin"], "roles": ["read"], "mode": "shadow",
         "options": {"text": "04712"}}
      ]}
      """)
    gas = try writeTemporaryFile("gas.png", TestImages.png(1))
    water = try writeTemporaryFile("water.png", TestImages.png(2))
  }

  func run(_ arguments: [String]) async throws -> CommandOutput {
    try await runCommand(photometer, arguments + ["--plugins", plugins, "--db", database])
  }

  func jsonLines(_ output: CommandOutput) throws -> [[String: Any]] {
    try output.lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
  }

  /// A plugins file whose one read plugin, the test plugin, answers `text` (`{height}`: the height
  /// of the image it was sent), its survey answers `refinable` or not.
  func readerAnswering(_ text: String, refinable: Bool = false) throws -> String {
    try writePluginsFile(
      """
      {"plugins": [
        {"name": "reader", "command": ["photometer-testplugin"], "roles": ["read"],
         "options": {"text": "\(text)", "refinable": "\(refinable ? "yes" : "no")"}}
      ]}
      """)
  }

  /// `photometer bench FOLDER --json` with the configuration `plugins`: a row per engine.
  func benchRows(_ folder: URL, plugins: String) async throws -> [[String: Any]] {
    let output = try await runCommand(
      photometer, ["bench", folder.path, "--json", "--plugins", plugins, "--db", database])
    #expect(output.status == 0, "\(output.standardError)")
    return try jsonLines(output)
  }

  @Test func readsImagesAsJSONLinesInInputOrder() async throws {
    let output = try await run(["read", gas, water, "--json", "--shadows"])
    #expect(output.status == 0, "\(output.standardError)")
    let lines = try jsonLines(output)
    #expect(lines.map { $0["image"] as? String } == [gas, water])
    #expect(lines.allSatisfy { $0["value"] as? String == "04711" })
    #expect(lines.allSatisfy { ($0["confidence"] as? Double).map { abs($0 - 0.8) < 1e-9 } == true })
    let engines = try #require(lines.first?["engines"] as? [[String: Any]])
    #expect(engines.map { $0["engine"] as? String } == ["reader", "shadow"])
    #expect(engines.map { $0["text"] as? String } == ["04711", "04712"])
    #expect(engines.allSatisfy { $0["ms"] is Double && $0["confidence"] is Double })
    #expect(output.lines.first?.hasPrefix(#"{"image":"#) == true)
  }

  @Test func readsImagesAsATable() async throws {
    let output = try await run(["read", gas])
    #expect(output.status == 0)
    #expect(output.lines.first?.hasPrefix("IMAGE") == true)
    #expect(output.lines.last?.contains("04711") == true)
  }

  @Test func identifiesAmongReferences() async throws {
    let output = try await run([
      "identify", water, gas, "--reference", "gas=\(gas)", "--reference", "water=\(water)", "--json",
    ])
    #expect(output.status == 0, "\(output.standardError)")
    let lines = try jsonLines(output)
    #expect(lines.map { $0["meter"] as? String } == ["water", "gas"])
    let plugins = try #require(lines.first?["plugins"] as? [[String: Any]])
    #expect(plugins.first?["plugin"] as? String == "reader")
    #expect(plugins.first?["meter"] as? String == "water")
  }

  @Test func comparesEnginesOnConfirmedReadings() async throws {
    #expect(try await run(["meter", "add", "Gas", "--kind", "gas", "--reference", gas]).status == 0)
    var ids: [Int] = []
    for _ in 0..<3 {
      let read = try await run(["read", "--meter", "Gas", "--save", "--json", gas])
      #expect(read.status == 0, "\(read.standardError)")
      ids.append(try #require(try jsonLines(read).first?["reading_id"] as? Int))
    }
    #expect(try await run(["ab"]).lines.first?.hasPrefix("No confirmed OCR readings") == true)
    // The voting reader was right twice; the third time the shadow engine was.
    #expect(try await run(["reading", "confirm", "\(ids[0])"]).status == 0)
    #expect(try await run(["reading", "confirm", "\(ids[1])"]).status == 0)
    #expect(try await run(["reading", "confirm", "\(ids[2])", "--value", "04712"]).status == 0)

    let output = try await run(["ab", "--json"])
    #expect(output.status == 0, "\(output.standardError)")
    let lines = try jsonLines(output)
    let rows = Dictionary(
      uniqueKeysWithValues: lines.compactMap { line in (line["engine"] as? String).map { ($0, line) } })
    #expect(rows["reader"]?["readings"] as? Int == 3)
    #expect(rows["reader"]?["exact"] as? Int == 2)
    #expect(rows["shadow"]?["exact"] as? Int == 1)
    #expect(rows["shadow"]?["voted"] as? Bool == false)
    #expect(rows["shadow"]?["disagreed_with_vote"] as? Int == 3)
    #expect(rows["vote"]?["exact"] as? Int == 2)
    let pair = try #require(lines.first { ($0["compare"] as? [String]) == ["reader", "shadow"] })
    #expect(pair["only_first_right"] as? Int == 2)
    #expect(pair["only_second_right"] as? Int == 1)
    #expect(pair["significant"] as? Bool == false)

    let table = try await run(["ab", "--meter", "Gas"])
    #expect(table.lines.first == "3 confirmed OCR readings")
    #expect(table.standardOutput.contains("reader vs shadow: no significant difference yet"))
  }

  @Test func benchesTheEnginesOnALabelledFolder() async throws {
    let folder = URL(
      fileURLWithPath: try writeTemporaryFile(
        "labels.csv", Array("file,text\na.png,04711\nb.png,04711\nc.png,04712\n".utf8))
    )
    .deletingLastPathComponent()
    for (index, name) in ["a.png", "b.png", "c.png"].enumerated() {
      try Data(TestImages.png(index)).write(to: folder.appendingPathComponent(name))
    }
    let chart = folder.appendingPathComponent("bench.svg").path
    let output = try await run(["bench", folder.path, "--json", "--svg", chart])
    #expect(output.status == 0, "\(output.standardError)")
    let rows = try jsonLines(output)
    #expect(rows.map { $0["engine"] as? String } == ["reader", "shadow", "vote"])
    #expect(rows.map { $0["exact"] as? Int } == [2, 1, 2])
    #expect(rows.allSatisfy { $0["images"] as? Int == 3 })
    #expect(rows[1]["voted"] as? Bool == false)
    #expect(try String(contentsOfFile: chart, encoding: .utf8).contains("<svg"))

    let table = try await run(["bench", folder.path, "--engines", "shadow"])
    #expect(table.lines.first?.hasPrefix("3 images of") == true)
    #expect(table.lines.dropFirst(2).map { $0.split(separator: " ").first.map(String.init) } == ["shadow", "vote"])

    // The vote read c.png's 04712 as 04711: --show-errors names it, as a line or a JSON object.
    let errors = try await run(["bench", folder.path, "--show-errors"])
    #expect(errors.lines.filter { $0.contains("wrong:") } == ["  wrong: c.png truth 04712, read 04711 (0.800)"])
    let errorLines = try jsonLines(try await run(["bench", folder.path, "--json", "--show-errors"]))
    #expect(errorLines.filter { $0["image"] != nil }.map { $0["read"] as? String } == ["04711"])

    let missing = try await run(["bench", "/nonexistent"])
    #expect(missing.status == 1)
    #expect(missing.standardError.contains("labels.csv"))
  }

  /// A labelled image is a digit window: bench reads it whole, as `read --roi` with the whole
  /// image would, not through the row search a photo without a window gets (which cut a Metrona
  /// strip 182 pixels high into a row and read none of them). The reader answers the height of
  /// what it was sent.
  @Test func benchReadsALabelledImageWholeNotARowFoundInIt() async throws {
    let photo = try await Rendered.devicePhotos(count: 1, seed: 1).appendingPathComponent("device-0000.jpg")
    let height = try VisionImage(decoding: [UInt8](Data(contentsOf: photo))).height
    let folder = URL(
      fileURLWithPath: try writeTemporaryFile("labels.csv", Array("file,text\nphoto.jpg,\(height)\n".utf8))
    ).deletingLastPathComponent()
    try FileManager.default.copyItem(at: photo, to: folder.appendingPathComponent("photo.jpg"))
    let heights = try readerAnswering("{height}")
    let rows = try await benchRows(folder, plugins: heights)
    #expect(rows.first { $0["engine"] as? String == "reader" }?["exact"] as? Int == 1)

    let found = try await runCommand(
      photometer,
      ["read", folder.appendingPathComponent("photo.jpg").path, "--json", "--plugins", heights, "--db", database])
    let value = try #require(try jsonLines(found).first?["value"] as? String)
    // (Sure of every row's height, the engine may make rows stacked in a monitor's ranges its
    // lines: the value's first field is still a row's.)
    let first = value.split(separator: "/").first.flatMap { Int($0) }
    #expect(first.map { $0 < height / 2 } == true, "without a window a photo is read by the rows found in it: \(value)")
  }

  /// Told the kind, a row read without its point is taken in the kind's format, and a photo whose
  /// rows fit none is read again in the kind's formats. An engine answering "37" and the digit
  /// count it was told reads a thermometer's rows 370 blind, which a thermometer shows as 37.0
  /// (a re-read would have been 373). One answering the count, 7 and whether it surveyed reads
  /// them 071, which fits no format; told three digits it reads 371: 37.1.
  @Test func aKindNoRowFitsRereadsTheRowsInItsFormat() async throws {
    let photo = try await Rendered.devicePhotos(count: 1, seed: 1).appendingPathComponent("device-0000.jpg").path
    let plain = try readerAnswering("37{digits}")
    let blind = try await runCommand(photometer, ["read", photo, "--json", "--plugins", plain, "--db", database])
    #expect(try jsonLines(blind).first?["value"] as? String == "370", "\(blind.standardError)")
    let inFormat = try await runCommand(
      photometer, ["read", photo, "--kind", "thermometer", "--json", "--plugins", plain, "--db", database])
    #expect(try jsonLines(inFormat).first?["value"] as? String == "37.0", "in its format, not read again")
    // Told the decimals, the rows are judged with them: 370 is 37.0, which fits; nothing is read again.
    let withDecimals = try await runCommand(
      photometer,
      ["read", photo, "--kind", "thermometer", "--decimals", "1", "--json", "--plugins", plain, "--db", database])
    #expect(try jsonLines(withDecimals).first?["value"] as? String == "37.0", "\(withDecimals.standardError)")

    let told = try readerAnswering("{digits}7{survey}")
    let thermometer = try await runCommand(
      photometer, ["read", photo, "--kind", "thermometer", "--json", "--plugins", told, "--db", database])
    let result = try #require(try jsonLines(thermometer).first, "\(thermometer.standardError)")
    #expect(result["value"] as? String == "37.1")
    let windows = try #require(result["windows"] as? [[String: Any]])
    #expect(windows.first?["value"] as? String == "37.1", "the chosen row first, as re-read")
  }

  /// A window read for a kind with display formats (the request's, or the meter's) is taken in
  /// the kind's format, as a row found in a whole photo is: a thermometer's 375, its point not
  /// read, is 37.5 rather than a value no thermometer shows, which a save refuses.
  @Test func aWindowOfAKindIsTakenInItsFormat() async throws {
    let reader = try readerAnswering("375")
    let told = try await runCommand(
      photometer,
      ["read", gas, "--roi", "0,0,16,16", "--kind", "thermometer", "--json", "--plugins", reader, "--db", database])
    #expect(try jsonLines(told).first?["value"] as? String == "37.5", "\(told.standardError)")
    // A photo small enough to be its own window, read whole, likewise.
    let whole = try await runCommand(
      photometer, ["read", gas, "--kind", "thermometer", "--json", "--plugins", reader, "--db", database])
    #expect(try jsonLines(whole).first?["value"] as? String == "37.5", "\(whole.standardError)")
    let added = try await runCommand(
      photometer,
      [
        "meter", "add", "Fever", "--reference", gas, "--kind", "thermometer", "--roi", "0,0,16,16", "--plugins", reader,
        "--db", database,
      ])
    #expect(added.status == 0, "\(added.standardError)")
    let saved = try await runCommand(
      photometer, ["read", water, "--meter", "Fever", "--save", "--json", "--plugins", reader, "--db", database])
    #expect(try jsonLines(saved).first?["value"] as? String == "37.5", "\(saved.standardError)")
    // A kind without formats keeps the value as read.
    let gasMeter = try await runCommand(
      photometer,
      ["read", gas, "--roi", "0,0,16,16", "--kind", "gas", "--json", "--plugins", reader, "--db", database])
    #expect(try jsonLines(gasMeter).first?["value"] as? String == "375")
  }

  /// The rows of a whole photo are read as surveys; the chosen one is read again in full only
  /// when an engine says its survey reading may differ. The engine answers "4" and whether it
  /// read a survey.
  @Test func theChosenRowIsReadAgainInFullOnlyWhenRefinable() async throws {
    let photo = try await Rendered.devicePhotos(count: 1, seed: 1).appendingPathComponent("device-0000.jpg").path
    for (refinable, expected) in [(false, "41"), (true, "40")] {
      let plugins = try readerAnswering("4{survey}", refinable: refinable)
      let output = try await runCommand(photometer, ["read", photo, "--json", "--plugins", plugins, "--db", database])
      let result = try #require(try jsonLines(output).first, "\(output.standardError)")
      #expect(result["value"] as? String == expected, "refinable: \(refinable)")
      let windows = try #require(result["windows"] as? [[String: Any]])
      #expect(windows.first?["value"] as? String == expected, "the chosen row first, as read in the end")
      #expect(windows.dropFirst().allSatisfy { $0["value"] as? String == "41" }, "the others as surveyed")
    }
  }

  /// Every read of a row found in a whole photo, the surveys and the chosen row read again, tells
  /// the engines so (`found_row`, which the reader plugin reads with its own training); a window
  /// given by `--roi` does not.
  @Test func foundRowsAreSentAsSuch() async throws {
    let photo = try await Rendered.devicePhotos(count: 1, seed: 1).appendingPathComponent("device-0000.jpg").path
    let plugins = try readerAnswering("7{found}{survey}", refinable: true)
    let found = try await runCommand(photometer, ["read", photo, "--json", "--plugins", plugins, "--db", database])
    let result = try #require(try jsonLines(found).first, "\(found.standardError)")
    #expect(result["value"] as? String == "710", "the chosen row read again in full, as a found row")
    let windows = try #require(result["windows"] as? [[String: Any]])
    #expect(windows.count > 1, "the photo should hold several rows for this test to mean anything")
    #expect(windows.dropFirst().allSatisfy { $0["value"] as? String == "711" }, "the others surveyed as found rows")
    let given = try await runCommand(
      photometer, ["read", photo, "--roi", "0,0,200,100", "--json", "--plugins", plugins, "--db", database])
    #expect(try jsonLines(given).first?["value"] as? String == "700")
  }

  /// A shadow reader is not asked to survey the rows of a whole photo, only to read the chosen
  /// one, so its answer still stands beside the reading: it is asked once however many rows
  /// were found, and reads that row in full. The voting reader, whose survey readings are not
  /// refinable, reads each row once, and its survey reading of the chosen one stands; the
  /// chosen row read under 0.9, it also surveys the photo whole once (R165), which is no surer.
  @Test func aShadowReadsOnlyTheChosenRow() async throws {
    let (result, asked) = try await readWithShadow(reader: "4{survey}", shadow: "7{survey}")
    let windows = try #require(result["windows"] as? [[String: Any]])
    #expect(windows.count > 1, "the photo should hold several rows for this test to mean anything")
    #expect(result["value"] as? String == "41")
    #expect((result["engines"] as? [[String: Any]])?.map { $0["text"] as? String } == ["41", "70"])
    #expect(asked.shadow == 1, "the shadow was asked \(asked.shadow) times")
    #expect(
      asked.reader == windows.count + 1, "the reader was asked \(asked.reader) times for \(windows.count) rows")
  }

  /// Not asked for the shadows' answers and saving nothing, the reply does not wait for a shadow:
  /// it is not asked at all.
  @Test func aShadowIsNotAskedForAReadThatDropsItsAnswer() async throws {
    let (result, asked) = try await readWithShadow(reader: "4{survey}", shadow: "7{survey}", arguments: [])
    #expect(result["value"] as? String == "41")
    #expect((result["engines"] as? [[String: Any]])?.map { $0["engine"] as? String } == ["reader"])
    #expect(asked.shadow == 0, "the shadow was asked \(asked.shadow) times")
  }

  /// Told a kind no row fits, the rows are read again in the kind's formats as surveys too: the
  /// shadow reads only the re-read taken, once, told its format.
  @Test func aShadowReadsOnlyTheRereadTaken() async throws {
    let (result, asked) = try await readWithShadow(
      reader: "{digits}7{survey}", shadow: "5{survey}{digits}", arguments: ["--kind", "thermometer", "--shadows"])
    #expect(result["value"] as? String == "37.1")
    #expect((result["engines"] as? [[String: Any]])?.map { $0["text"] as? String } == ["371", "503"])
    #expect(asked.shadow == 1, "the shadow was asked \(asked.shadow) times")
  }

  /// A counter's window sent with no window, wide and read whole unsurely (its mid-roll wheels),
  /// is not searched again as a scene: its rows are its wheels, which never win (R174). The
  /// reader is asked once, for the whole window.
  @Test func aCountersWindowReadWholeUnsurelyIsReadOnce() async throws {
    let folder = try await Rendered.digits("wheels", count: 1, seed: 2)
    let row = try #require(try Rendered.rows(folder.appendingPathComponent("labels.csv")).first)
    let small = try VisionImage(decoding: [UInt8](try Data(contentsOf: folder.appendingPathComponent(row[0]))))
    let large = try small.resized(width: Int((400 * Float(small.width) / Float(small.height)).rounded()), height: 400)
    #expect(Double(large.width) >= WindowChoice.windowAspect * Double(large.height))
    let photo = folder.appendingPathComponent("cropped.jpg")
    try Data(try large.encoded(jpeg: true)).write(to: photo)
    let started = URL(fileURLWithPath: try writeTemporaryFile("reader-started.txt", []))
    let plugins = try writePluginsFile(
      """
      {"plugins": [{"name": "reader", "command": ["photometer-testplugin"], "roles": ["read"],
        "options": {"text": "00530", "confidence": "0.5", "started_file": "\(started.path)"}}]}
      """)
    let output = try await runCommand(
      photometer, ["read", photo.path, "--json", "--plugins", plugins, "--db", database])
    #expect(try jsonLines(output).first?["value"] as? String == "00530", "\(output.standardError)")
    let asked = try String(contentsOf: started, encoding: .utf8).split(separator: "\n").count
    #expect(asked == 1, "the reader was asked \(asked) times")
  }

  /// `read --json` of a rendered device photo, no window given, by a test reader answering
  /// `reader` and a shadow answering `shadow`: the result, and how often each was asked.
  func readWithShadow(reader: String, shadow: String, arguments: [String] = ["--shadows"]) async throws
    -> (result: [String: Any], asked: (reader: Int, shadow: Int))
  {
    let photo = try await Rendered.devicePhotos(count: 1, seed: 1).appendingPathComponent("device-0000.jpg").path
    let readerStarted = URL(fileURLWithPath: try writeTemporaryFile("reader-started.txt", []))
    let shadowStarted = URL(fileURLWithPath: try writeTemporaryFile("shadow-started.txt", []))
    let plugins = try writePluginsFile(
      """
      {"plugins": [
        {"name": "reader", "command": ["photometer-testplugin"], "roles": ["read"],
         "options": {"text": "\(reader)", "started_file": "\(readerStarted.path)"}},
        {"name": "shadow", "command": ["photometer-testplugin"], "roles": ["read"], "mode": "shadow",
         "options": {"text": "\(shadow)", "started_file": "\(shadowStarted.path)"}}
      ]}
      """)
    let output = try await runCommand(
      photometer, ["read", photo, "--json", "--plugins", plugins, "--db", database] + arguments)
    let result = try #require(try jsonLines(output).first, "\(output.standardError)")
    let lines = { (file: URL) in try String(contentsOf: file, encoding: .utf8).split(separator: "\n").count }
    return (result, (try lines(readerStarted), try lines(shadowStarted)))
  }

  /// A row whose truth does not say where the decimal point is (`points` unlabelled: a strip of
  /// real photos, each with its device's comma) is judged on the reading's digits; a row that
  /// labels its points is judged with them.
  @Test func benchJudgesDigitsOnlyWhereTheTruthLabelsNoPoint() async throws {
    let folder = URL(
      fileURLWithPath: try writeTemporaryFile(
        "labels.csv", Array("file,text,accept,points\na.png,0471,,unlabelled\nb.png,0471,,labelled\n".utf8))
    ).deletingLastPathComponent()
    for (index, name) in ["a.png", "b.png"].enumerated() {
      try Data(TestImages.png(index)).write(to: folder.appendingPathComponent(name))
    }
    let rows = try await benchRows(folder, plugins: try readerAnswering("04.71"))
    #expect(rows.first { $0["engine"] as? String == "reader" }?["exact"] as? Int == 1)
    #expect(rows.first { $0["engine"] as? String == "vote" }?["exact"] as? Int == 1)
  }

  @Test func benchesTheIdentifyPluginsOnAHousehold() async throws {
    let folder = URL(
      fileURLWithPath: try writeTemporaryFile("meters.csv", Array("name,reference\nGas,a.png\nWater,b.png\n".utf8))
    ).deletingLastPathComponent()
    try Data("file,meter\na.png,Gas\nb.png,Water\nc.png,\n".utf8).write(
      to: folder.appendingPathComponent("queries.csv"))
    for (index, name) in ["a.png", "b.png", "c.png"].enumerated() {
      try Data(TestImages.png(index)).write(to: folder.appendingPathComponent(name))
    }
    let output = try await run(["bench", "--identify", folder.path, "--json"])
    #expect(output.status == 0, "\(output.standardError)")
    let rows = try jsonLines(output)
    #expect(rows.map { $0["plugin"] as? String } == ["reader", "vote"])
    #expect(rows.map { $0["top1"] as? Double } == [1, 1])
    #expect(rows.map { $0["known"] as? Int } == [2, 2])
    #expect(rows.last?["unknown"] as? Int == 1)
    #expect(rows.last?["rejected"] as? Double == 1)
    // The first query's time, every reference learnt in it, stands apart on the vote's row.
    #expect((rows.last?["first_ms"] as? Double).map { $0 > 0 } == true)
    #expect(rows.first?["first_ms"] is NSNull)
    // The user's database is not touched: the meters went to a temporary one.
    #expect(try await run(["meter", "list", "--json"]).lines.isEmpty)
  }

  @Test func replaysARecordingAgainstOtherPlugins() async throws {
    let recording = URL(fileURLWithPath: temporaryDatabasePath()).deletingLastPathComponent().appendingPathComponent(
      "traffic.rec"
    ).path
    try FileManager.default.createDirectory(
      atPath: URL(fileURLWithPath: recording).deletingLastPathComponent().path, withIntermediateDirectories: true)
    #expect(try await run(["read", gas, water, "--shadows", "--record", recording]).status == 0)
    #expect(try await run(["ping", "--record", recording]).status == 0)

    let same = try await run(["replay", recording])
    #expect(same.status == 0, "\(same.standardError)")
    // Skipped: the two commands' Hello and the Ping.
    #expect(same.lines == ["Replayed 2 requests: 0 answered differently, 2 the same; 3 other requests skipped"])

    let upgraded = try writePluginsFile(
      #"{"plugins": [{"name": "reader", "command": ["photometer-testplugin"], "roles": ["read"], "options": {"text": "04713"}}]}"#
    )
    let output = try await runCommand(
      photometer, ["replay", recording, "--json", "--plugins", upgraded, "--db", database])
    #expect(output.status == 0, "\(output.standardError)")
    let lines = try jsonLines(output)
    // The recording keeps the order in which the host received the requests, and the two reads of one
    // command may reach it in either order.
    #expect(Set(lines.map { $0["image"] as? String }) == [gas, water])
    #expect(lines.allSatisfy { $0["differs"] as? Bool == true })
    #expect(
      lines.first { $0["image"] as? String == gas }?["changes"] as? [String] == [
        "value 04711 -> 04713", "reader 04711 -> 04713", "shadow (gone) was 04712",
      ])

    let broken = try writeTemporaryFile("broken.rec", [5, 1, 2])
    #expect(try await run(["replay", broken]).status == 1)
  }

  @Test func listsPlugins() async throws {
    let output = try await run(["plugins", "--json"])
    #expect(output.status == 0)
    let lines = try jsonLines(output)
    #expect(lines.map { $0["plugin"] as? String } == ["reader", "shadow"])
    #expect(lines.map { $0["state"] as? String } == ["ready", "ready"])
    #expect(lines.allSatisfy { ($0["pid"] as? Int ?? 0) > 0 })
    #expect(lines.map { $0["mode"] as? String } == ["vote", "shadow"])
  }

  @Test func pings() async throws {
    let output = try await run(["ping", "--count", "3", "--json"])
    #expect(output.status == 0)
    #expect(try jsonLines(output).map { $0["sequence"] as? Int } == [1, 2, 3])
  }

  @Test func badInputExitsWithOneAndAReason() async throws {
    let output = try await run(["read", gas, "/nonexistent/photo.jpg", "--json"])
    #expect(output.status == 1)
    let reason = "cannot read image /nonexistent/photo.jpg: No such file or directory"
    #expect(output.standardError.contains("photometer: \(reason)"))
    // The good image is still read, in order.
    let lines = try jsonLines(output)
    #expect(lines.map { $0["value"] as? String } == ["04711", nil])
    #expect(lines.last?["error"] as? String == reason)
  }

  @Test func readsAndIdentifiesAPhotoFromStandardInput() async throws {
    let photo = try Data(contentsOf: URL(fileURLWithPath: gas))
    let crops = Scratch.folder.appendingPathComponent("crops-\(UUID())/new").path
    let read = try await runCommand(
      photometer, ["read", "-", "--json", "--crops", crops, "--plugins", plugins, "--db", database], input: photo)
    #expect(read.status == 0, "\(read.standardError)")
    let line = try #require(try jsonLines(read).first)
    #expect(line["image"] as? String == "-")
    #expect(line["value"] as? String == "04711")
    // The crop folder was created, and the crop is named after standard input.
    #expect(FileManager.default.fileExists(atPath: crops + "/stdin.crop.png"))
    let identify = try await runCommand(
      photometer,
      ["identify", "-", "--reference", "water=\(water)", "--reference", "gas=\(gas)", "--json"]
        + ["--plugins", plugins, "--db", database], input: photo)
    #expect(identify.status == 0, "\(identify.standardError)")
    #expect(try jsonLines(identify).first?["meter"] as? String == "gas")
    // Nothing piped in is named as such.
    let empty = try await runCommand(photometer, ["read", "-", "--plugins", plugins, "--db", database], input: Data())
    #expect(empty.status == 1)
    #expect(empty.standardError.contains("standard input (-) held no image"))
  }

  @Test func writesTheStoredCropsOfTheListedReadings() async throws {
    #expect(try await run(["meter", "add", "Gas", "--kind", "gas", "--reference", gas]).status == 0)
    let read = try await run(["read", "--meter", "Gas", "--roi", "0,0,8,8", "--save", "--json", water])
    #expect(read.status == 0, "\(read.standardError)")
    let id = try #require(try jsonLines(read).first?["reading_id"] as? Int)
    #expect(try await run(["reading", "add", "Gas", "00100", "--force"]).status == 0)
    let crops = Scratch.folder.appendingPathComponent("crops-\(UUID())").path
    let listed = try await run(["readings", "Gas", "--crops", crops])
    #expect(listed.status == 0, "\(listed.standardError)")
    // The OCR reading's crop, a PNG of the 8 x 8 window; the typed reading has none.
    let written = try FileManager.default.contentsOfDirectory(atPath: crops)
    #expect(written == ["\(id).png"])
    let crop = try Data(contentsOf: URL(fileURLWithPath: "\(crops)/\(id).png"))
    #expect(crop.starts(with: [0x89, 0x50, 0x4E, 0x47]))

    // One reading: its crop to a file of the user's naming, its engines, or why there is no crop.
    let file = "\(crops)/shown.png"
    let shown = try await run(["reading", "show", "\(id)", "--crop", file])
    #expect(shown.status == 0, "\(shown.standardError)")
    #expect(shown.lines.first?.hasPrefix("Reading \(id): Gas ") == true)
    #expect(FileManager.default.contents(atPath: file) == crop)
    let json = try #require(try jsonLines(try await run(["reading", "show", "\(id)", "--json"])).first)
    #expect(json["id"] as? Int == id && (json["engines"] as? [Any])?.isEmpty == false)
    let typed = try #require(try jsonLines(try await run(["readings", "Gas", "--json"])).last?["id"] as? Int)
    let none = try await run(["reading", "show", "\(typed)", "--crop", file])
    #expect(none.status == 1 && none.standardError.contains("reading \(typed) has no stored crop"))
    let missing = try await run(["reading", "show", "99999"])
    #expect(missing.status == 1 && missing.standardError.contains("no reading has the id 99999"))
  }

  @Test func aStoreQueryLeavesTheDatabaseFileUnchanged() async throws {
    #expect(try await run(["meter", "add", "Gas", "--kind", "gas", "--reference", gas]).status == 0)
    #expect(try await run(["reading", "add", "Gas", "00100"]).status == 0)
    // The file and its write-ahead log when it holds anything (a read-only connection may
    // leave an empty one).
    func contents() throws -> [Data?] {
      [database, database + "-wal"].map { FileManager.default.contents(atPath: $0).flatMap { $0.isEmpty ? nil : $0 } }
    }
    let before = try contents()
    for query in [["meter", "list"], ["readings", "Gas"], ["stats", "Gas"], ["export"]] {
      let output = try await run(query)
      #expect(output.status == 0, "\(query): \(output.standardError)")
    }
    #expect(try contents() == before)
  }

  @Test func aCropFolderThatCannotBeMadeFailsBeforeReading() async throws {
    let output = try await run(["read", gas, "--crops", "/proc/none/crops"])
    #expect(output.status == 1)
    #expect(output.standardError.contains("photometer: cannot create the folder /proc/none/crops: No such file"))
    #expect(output.standardOutput.isEmpty)
  }

  @Test func aBadArgumentExitsWithOne() async throws {
    let output = try await run(["read", gas, "--roi", "1,2,3"])
    #expect(output.status == 1)
    #expect(output.standardError.contains("roi"))
    for usage in [
      ["readings", "Gas", "--from", "yesterday"], ["meter", "list", "--no-such-flag"], ["no-such-command"],
    ] {
      let refused = try await run(usage)
      #expect(refused.status == 1, "\(usage)")
      #expect(refused.standardError.contains("Error: "), "\(usage)")
    }
    #expect(try await run(["readings", "--help"]).status == 0)
  }

  @Test func aBrokenConfigurationOrDatabaseIsNamedWithItsReasonAndExitsWithOne() async throws {
    let broken = try writePluginsFile(#"{"plugins": [{"name": "a", "roles": ["read"]}]}"#)
    // (A command that needs plugins: one that only reads the store answers without the host.)
    let output = try await runCommand(photometer, ["plugins", "--plugins", broken, "--db", database])
    #expect(output.status == 1)
    #expect(output.standardError.contains("photometer: \(broken) is not a valid plugin configuration: missing field"))
    let unopenable = try await runCommand(photometer, ["meter", "list", "--plugins", plugins, "--db", "/proc/x/m.db"])
    #expect(unopenable.status == 1)
    #expect(unopenable.standardError.contains("photometer: the database failed: cannot create the folder /proc/x"))
    #expect(!unopenable.standardError.contains("handshake"))
  }

  /// A command that only reads the store answers in the CLI's own process: no host starts, so
  /// neither a plugin configuration it would refuse nor a missing host program matters.
  @Test func aStoreQueryStartsNoHost() async throws {
    #expect(try await run(["meter", "add", "Gas", "--kind", "gas", "--reference", gas]).status == 0)
    #expect(try await run(["reading", "add", "Gas", "00100"]).status == 0)
    let broken = try writePluginsFile(#"{"plugins": [{"name": "a", "roles": ["read"]}]}"#)
    let listed = try await runCommand(photometer, ["readings", "Gas", "--plugins", broken, "--db", database])
    #expect(listed.status == 0, "\(listed.standardError)")
    #expect(listed.standardOutput.contains("00100"))
    let missing = try await runCommand(photometer, ["meter", "show", "Water", "--plugins", broken, "--db", database])
    #expect(missing.status == 1 && missing.standardError.contains("no meter is named 'Water'"))
    // Another host asked for by name is used.
    let named = try await run(["meter", "list", "--host", "/nonexistent/photometer-host"])
    #expect(named.status == 2)
  }

  @Test func bothProgramsPrintTheOneVersion() async throws {
    for program in [photometer, Products.executable("photometer-host")] {
      let output = try await runCommand(program, ["--version"])
      #expect(output.status == 0)
      #expect(output.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == PhotometerVersion.current)
    }
  }

  @Test func aMissingHostIsAnInternalFailure() async throws {
    let output = try await run(["ping", "--host", "/nonexistent/photometer-host"])
    #expect(output.status == 2)
    #expect(output.standardError.contains("cannot start /nonexistent/photometer-host"))
  }
}
