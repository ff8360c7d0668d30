import Foundation
import PhotometerVision
import TestSupport
import Testing

/// The shipped recognizers (plugins.json) behind the `photometer` command: a rendered household
/// is registered, a later photo is identified, its counter read through the identify homography
/// and saved; bad images get clear errors.
@Suite struct RecognizerPluginTests {
  let photometer = Products.executable("photometer")
  let database = temporaryDatabasePath()
  let plugins = Products.shippedPlugins()

  func run(_ arguments: [String]) async throws -> CommandOutput {
    try await runCommand(photometer, arguments + ["--plugins", plugins, "--db", database])
  }

  func json(_ output: CommandOutput) throws -> [[String: Any]] {
    try output.lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
  }

  @Test func identifiesReadsAndSavesARenderedMeter() async throws {
    let folder = try await Rendered.household(meters: 3, queries: 1, unknown: 1, seed: 7)
    for row in try Rendered.rows(folder.appendingPathComponent("meters.csv")) {
      let added = try await run([
        "meter", "add", row[0], "--kind", "water", "--reference", folder.appendingPathComponent(row[1]).path,
        "--roi", row[2...5].joined(separator: ","), "--digits", row[6], "--counts-up", "false",
      ])
      #expect(added.status == 0, "\(added.standardError)")
    }
    let queries = try Rendered.rows(folder.appendingPathComponent("queries.csv"))
    let paths = queries.map { folder.appendingPathComponent($0[0]).path }
    let identified = try json(try await run(["identify", "--json"] + paths))
    #expect(identified.map { $0["meter"] as? String } == queries.map { $0[1].isEmpty ? nil : $0[1] })
    #expect((identified.first?["outline"] as? [[Double]])?.count == 4)
    #expect((identified.first?["colour"] as? String)?.hasPrefix("#") == true)

    let read = try await run(["read", "--meter", queries[0][1], "--save", "--json", paths[0]])
    #expect(read.status == 0, "\(read.standardError)")
    let result = try #require(try json(read).first)
    let value = try #require(result["value"] as? String)
    #expect(value.count == Int(try Rendered.rows(folder.appendingPathComponent("meters.csv"))[0][6]))
    #expect(
      (result["engines"] as? [[String: Any]])?.compactMap { $0["engine"] as? String } == ["reader", "tesseract"])
    #expect(result["reading_id"] is Double)
    let history = try json(try await run(["readings", queries[0][1], "--json"]))
    #expect(history.map { $0["value"] as? String } == [value])
  }

  /// A water meter with four pointer dials (Tools/make-dial-meters.py), set up with its wheels'
  /// window and its dials: the reading goes to the tenth of a litre, the dials plugin's answer with
  /// the engines. The coarser dials' digits are decided by the finer ones, so they are the truth's;
  /// the finest may be one off where its pointer stands on a division.
  @Test func readsAWaterMetersWheelsAndDialsAsOneValue() async throws {
    let folder = try await Rendered.dialMeters(count: 1, seed: 21)
    let meter = try #require(try Rendered.rows(folder.appendingPathComponent("labels.csv")).first)
    let photo = folder.appendingPathComponent(meter[0]).path
    let dials = meter[3].split(separator: ";").map { dial in
      let parts = dial.split(separator: ":")
      return parts[0].split(separator: " ").joined(separator: ",") + ":" + parts[1] + (parts[2] == "ccw" ? ":ccw" : "")
    }
    let added = try await run(
      [
        "meter", "add", "Water", "--kind", "water", "--reference", photo, "--roi",
        meter[2].split(separator: " ").joined(separator: ","), "--digits", "5", "--counts-up", "false",
      ] + dials.flatMap { ["--dial", $0] })
    #expect(added.status == 0, "\(added.standardError)")
    let shown = try await run(["meter", "show", "Water"])
    #expect(shown.standardOutput.contains(dials[0]), "\(shown.standardOutput)")

    let read = try await run(["read", "--meter", "Water", "--json", photo])
    #expect(read.status == 0, "\(read.standardError)")
    let result = try #require(try json(read).first)
    let value = try #require(result["value"] as? String)
    let truth = meter[1]
    #expect(value.count == truth.count && value.dropFirst(5).first == ".", "\(value)")
    #expect(value.suffix(4).prefix(3) == truth.suffix(4).prefix(3), "\(value), truth \(truth)")
    let finest = (Int(String(value.last!))! - Int(String(truth.last!))! + 10) % 10
    #expect(finest == 0 || finest == 1 || finest == 9, "\(value), truth \(truth)")
    #expect((result["dials"] as? [[String: Any]])?.count == 4)
    #expect((result["flags"] as? [String])?.contains("located-by-face") == false, "\(result)")
    #expect((result["engines"] as? [[String: Any]])?.contains { $0["engine"] as? String == "dials" } == true)

    // With no dials plugin configured the wheels' value stands, flagged.
    let wheelsOnly = try await runCommand(
      photometer,
      ["read", "--meter", "Water", "--json", photo, "--plugins", try plugins(without: "dials"), "--db", database])
    let alone = try #require(try json(wheelsOnly).first)
    #expect((alone["value"] as? String)?.count == 5, "\(alone)")
    #expect((alone["flags"] as? [String])?.contains("dials-not-read") == true, "\(alone)")

    // Counting up, after a reading 5 m3 above this photo's: the wheels as read fall below it, and
    // the whole number moves to the nearest one the dials' digits make plausible.
    #expect(try await run(["meter", "edit", "Water", "--counts-up", "true"]).status == 0)
    let whole = try #require(Int(truth.prefix(5)))
    let yesterday = ISO8601DateFormatter().string(from: Date(timeIntervalSinceNow: -86_400))
    let earlier = String(format: "%05d.0000", whole + 5)
    #expect(try await run(["reading", "add", "Water", earlier, "--at", yesterday]).status == 0)
    let afterward = try #require(try json(try await run(["read", "--meter", "Water", "--json", photo])).first)
    let moved = try #require(afterward["value"] as? String)
    #expect(Int(moved.prefix(5)) == whole + 5 && moved.suffix(4).prefix(3) == truth.suffix(4).prefix(3), "\(moved)")
    #expect((afterward["flags"] as? [String])?.contains("repaired") == true, "\(afterward)")
  }

  /// A water meter registered from a phone's photo and read in another (a rendered meter enlarged
  /// to 4,000 pixels, its regions with it): the photo is decoded at half its size, the regions
  /// found through the homography to its pixels as taken, and the value is read as at 409 pixels.
  @Test func readsAPhoneSizedWaterMeterDecodedSmaller() async throws {
    let folder = try await Rendered.dialMeters(count: 1, seed: 21)
    let meter = try #require(try Rendered.rows(folder.appendingPathComponent("labels.csv")).first)
    let small = try VisionImage(decoding: [UInt8](try Data(contentsOf: folder.appendingPathComponent(meter[0]))))
    let factor = 4000 / Double(max(small.width, small.height))
    let large = try small.resized(
      width: Int((Double(small.width) * factor).rounded()), height: Int((Double(small.height) * factor).rounded()))
    let photo = folder.appendingPathComponent("phone.jpg")
    try Data(try large.encoded(jpeg: true)).write(to: photo)
    func scaled(_ box: Substring) -> String {
      box.split(separator: " ").map { String(Int((Double($0)! * factor).rounded())) }.joined(separator: ",")
    }
    let dials = meter[3].split(separator: ";").map { dial in
      let parts = dial.split(separator: ":")
      return scaled(parts[0]) + ":" + parts[1] + (parts[2] == "ccw" ? ":ccw" : "")
    }
    let added = try await run(
      [
        "meter", "add", "Phone", "--kind", "water", "--reference", photo.path, "--roi", scaled(Substring(meter[2])),
        "--digits", "5", "--counts-up", "false",
      ] + dials.flatMap { ["--dial", $0] })
    #expect(added.status == 0, "\(added.standardError)")
    #expect(max(large.width, large.height) == 4000)

    let read = try await run(["read", "--meter", "Phone", "--json", photo.path])
    #expect(read.status == 0, "\(read.standardError)")
    let result = try #require(try json(read).first)
    let value = try #require(result["value"] as? String)
    let truth = meter[1]
    #expect(value.count == truth.count && value.prefix(5) == truth.prefix(5), "\(value), truth \(truth)")
    #expect(value.suffix(4).prefix(3) == truth.suffix(4).prefix(3), "\(value), truth \(truth)")
    #expect((result["dials"] as? [[String: Any]])?.count == 4)
  }

  /// A later photo of a water meter (turned, tilted, its pointers and wheels moved on) with no
  /// keypoint plugin to locate it: its dials do, and the whole face straightens its window.
  @Test func aMeterTheKeypointsCannotLocateIsLocatedByItsDials() async throws {
    let folder = try await Rendered.dialMeters(count: 1, seed: 25, references: true)
    let meter = try #require(try Rendered.rows(folder.appendingPathComponent("labels.csv")).first)
    let dials = meter[7].split(separator: ";").map { dial in
      let parts = dial.split(separator: ":")
      return parts[0].split(separator: " ").joined(separator: ",") + ":" + parts[1]
    }
    let configuration = try plugins(without: "keypoints")
    func run(_ arguments: [String]) async throws -> CommandOutput {
      try await runCommand(photometer, arguments + ["--plugins", configuration, "--db", database])
    }
    let reference = folder.appendingPathComponent(meter[0].replacingOccurrences(of: "meter-", with: "reference-"))
    let added = try await run(
      [
        "meter", "add", "Water", "--kind", "water", "--reference", reference.path, "--roi",
        meter[6].split(separator: " ").joined(separator: ","), "--digits", "5", "--counts-up", "false",
      ] + dials.flatMap { ["--dial", $0] })
    #expect(added.status == 0, "\(added.standardError)")
    let read = try await run(["read", "--meter", "Water", "--json", folder.appendingPathComponent(meter[0]).path])
    #expect(read.status == 0, "\(read.standardError)")
    let result = try #require(try json(read).first)
    let flags = try #require(result["flags"] as? [String])
    #expect(!flags.contains("meter-not-located") && flags.contains("located-by-face"), "\(result)")
    let (value, truth) = (try #require(result["value"] as? String), meter[1])
    #expect(value.dropLast() == truth.dropLast(), "\(value), truth \(truth)")
  }

  /// A blurred, tilted photo of a meter (the field style's fifteenth) on which the keypoint match is
  /// too weak for the vote to name it: the weak match, refined from the whole face, still places
  /// the window.
  @Test func aWeakMatchRefinedFromTheFaceLocatesTheMeter() async throws {
    let folder = try await Rendered.dialMeters(count: 15, seed: 1, style: "field", references: true)
    let meter = try #require(try Rendered.rows(folder.appendingPathComponent("labels.csv")).last)
    let (photo, reference) = (
      folder.appendingPathComponent(meter[0]).path,
      folder.appendingPathComponent(meter[0].replacingOccurrences(of: "meter-", with: "reference-")).path
    )
    let identified = try json(try await run(["identify", "--json", photo, "--reference", "Water=\(reference)"]))
    #expect(identified.first?["meter"] is NSNull, "\(identified)")
    let added = try await run([
      "meter", "add", "Water", "--kind", "water", "--reference", reference, "--roi",
      meter[6].split(separator: " ").joined(separator: ","), "--digits", "5",
    ])
    #expect(added.status == 0, "\(added.standardError)")
    let read = try await run(["read", "--meter", "Water", "--json", photo])
    let result = try #require(try json(read).first)
    let flags = try #require(result["flags"] as? [String])
    #expect(!flags.contains("meter-not-located") && flags.contains("located-by-face"), "\(result)")
    #expect((result["value"] as? String)?.prefix(4) == meter[1].prefix(4), "\(result), truth \(meter[1])")
  }

  /// The shipped plugins.json without the plugin `name`, written to a file of its own.
  func plugins(without name: String) throws -> String {
    let configuration = try String(contentsOfFile: plugins, encoding: .utf8)
    let without = try #require(
      configuration.range(of: "    {\n      \"name\": \"\(name)\"").map { start in
        let end = configuration.range(of: "    },\n", range: start.upperBound..<configuration.endIndex)!.upperBound
        return configuration.replacingCharacters(in: start.lowerBound..<end, with: "")
      })
    return try writeTemporaryFile("plugins.json", Array(without.utf8))
  }

  /// `meter preview` draws the digit window in green and each dial in magenta where the user set
  /// them; on a photo without the meter it says the meter is not in it. (Another meter of the same
  /// model has its dials where this one has: they locate it, as a read would.)
  @Test func thePreviewDrawsTheRegionsWhereTheyWereSet() async throws {
    let folder = try await Rendered.dialMeters(count: 2, seed: 23)
    let meters = try Rendered.rows(folder.appendingPathComponent("labels.csv"))
    let regions = meters[0][3].split(separator: ";").map {
      $0.split(separator: ":")[0].split(separator: " ").compactMap { Int($0) }
    }
    let window = meters[0][2].split(separator: " ").compactMap { Int($0) }
    let added = try await run(
      [
        "meter", "add", "Water", "--reference", folder.appendingPathComponent(meters[0][0]).path, "--roi",
        window.map(String.init).joined(separator: ","),
      ]
        + regions.flatMap {
          [
            "--dial",
            $0.map(String.init).joined(separator: ",")
              + ":0.\(String(repeating: "0", count: regions.firstIndex(of: $0)!))1",
          ]
        })
    #expect(added.status == 0, "\(added.standardError)")
    let file = database + "-preview.png"
    let drawn = try await run(["meter", "preview", "Water", "-o", file])
    #expect(drawn.status == 0, "\(drawn.standardError)")
    let preview = try VisionImage(decoding: [UInt8](try Data(contentsOf: URL(fileURLWithPath: file))))
    let pixels = preview.pixels
    func colour(_ x: Int, _ y: Int) -> [UInt8] {
      let at = (y * preview.width + x) * preview.channels
      return [pixels[at + 2], pixels[at + 1], pixels[at]]
    }
    func outlined(_ box: [Int], _ rgb: [UInt8]) -> Bool {
      let (x, y, width, height) = (box[0], box[1], box[2], box[3])
      return [(x + width / 2, y + height), (x, y + height / 2), (x + width, y + height / 2)].allSatisfy {
        colour($0.0, $0.1) == rgb
      }
    }
    #expect(outlined(window, [0, 255, 0]))
    #expect(regions.allSatisfy { outlined($0, [255, 0, 255]) })
    #expect(!outlined(window.map { $0 + 3 }, [0, 255, 0]))

    let device = try await Rendered.devicePhotos(count: 1, seed: 1).appendingPathComponent("device-0000.jpg")
    let elsewhere = try await run(["meter", "preview", "Water", "--photo", device.path, "-o", file])
    #expect(elsewhere.status == 1)
    #expect(elsewhere.standardError.contains("not found in the photo"), "\(elsewhere.standardError)")
  }

  /// A counter set up as `--extended`: its last wheel's roll is one more decimal.
  @Test func anExtendedCounterReadsItsLastWheelsRollAsADecimal() async throws {
    let folder = try await Rendered.dialMeters(count: 1, seed: 24)
    let meter = try #require(try Rendered.rows(folder.appendingPathComponent("labels.csv")).first)
    let photo = folder.appendingPathComponent(meter[0]).path
    let added = try await run([
      "meter", "add", "Gas", "--kind", "gas", "--reference", photo, "--roi",
      meter[2].split(separator: " ").joined(separator: ","), "--digits", "5", "--counts-up", "false", "--extended",
      "true",
    ])
    #expect(added.status == 0, "\(added.standardError)")
    let read = try await run(["read", "--meter", "Gas", "--json", photo])
    #expect(read.status == 0, "\(read.standardError)")
    let value = try #require(try json(read).first?["value"] as? String)
    #expect(value.count == 7 && value.dropFirst(5).first == ".", "\(value)")
  }

  @Test func aDialOutOfStepWithTheDecimalsIsRefusedWithTheRightFactors() async throws {
    let folder = try await Rendered.dialMeters(count: 1, seed: 22)
    let meter = try #require(try Rendered.rows(folder.appendingPathComponent("labels.csv")).first)
    let photo = folder.appendingPathComponent(meter[0]).path
    let typo = try await run(["meter", "add", "W", "--reference", photo, "--dial", "10,10,50"])
    #expect(typo.status != 0)
    #expect(typo.standardError.contains("X,Y,W,H:FACTOR"), "\(typo.standardError)")
    let skipped = try await run([
      "meter", "add", "W", "--reference", photo, "--roi", "10,70,120,30", "--decimals", "0", "--dial",
      "10,10,50,50:0.1", "--dial", "70,10,50,50:0.001",
    ])
    #expect(skipped.status == 1)
    #expect(skipped.standardError.contains("x0.1, x0.01"), "\(skipped.standardError)")
    // Without a window the finders would take the dials' numbers for the counter: refused.
    let windowless = try await run(["meter", "add", "W", "--reference", photo, "--dial", "10,10,50,50:0.1"])
    #expect(windowless.status == 1)
    #expect(windowless.standardError.contains("--roi X,Y,W,H"), "\(windowless.standardError)")
    #expect(try await run(["meter", "list", "--json"]).lines.isEmpty)
  }

  /// A request's dial far out of the photo, its far edge past Int32, is not read; the wheels are,
  /// and the host stays up.
  @Test func aDialFarOutOfThePhotoLeavesTheWheelsRead() async throws {
    let folder = try await Rendered.dialMeters(count: 1, seed: 22)
    let meter = try #require(try Rendered.rows(folder.appendingPathComponent("labels.csv")).first)
    let read = try await run([
      "read", folder.appendingPathComponent(meter[0]).path, "--digits", "5", "--dial", "2147483640,10,100,100:0.1",
      "--json",
    ])
    #expect(read.standardOutput.contains("dials-not-read"), "\(read.standardOutput) \(read.standardError)")
    #expect(!read.standardOutput.contains("closed the connection"), "\(read.standardOutput)")
  }

  /// The common home has one meter. A photo of another meter must not be saved under it: `read
  /// --save` without `--meter` stores nothing unless the identification is sure, and says so.
  @Test func aHomeOfOneMeterSavesNoReadingOfAnotherMeter() async throws {
    let folder = try await Rendered.household(meters: 1, queries: 1, unknown: 3, seed: 8)
    let meter = try #require(try Rendered.rows(folder.appendingPathComponent("meters.csv")).first)
    let added = try await run([
      "meter", "add", meter[0], "--kind", "water", "--reference", folder.appendingPathComponent(meter[1]).path,
      "--roi", meter[2...5].joined(separator: ","), "--digits", meter[6],
    ])
    #expect(added.status == 0, "\(added.standardError)")
    let queries = try Rendered.rows(folder.appendingPathComponent("queries.csv"))
    for query in queries where query[1].isEmpty {
      let read = try await run(["read", "--save", "--json", folder.appendingPathComponent(query[0]).path])
      #expect(read.status == 1)
      let error = try #require(try json(read).first?["error"] as? String)
      #expect(error.contains("cannot save: not sure which meter this is"), "\(error)")
      #expect(error.contains("name one with --meter"))
    }
    #expect(try json(try await run(["readings", meter[0], "--json"])).isEmpty)
    let own = try #require(queries.first { $0[1] == meter[0] })
    let saved = try await run(["read", "--save", "--json", folder.appendingPathComponent(own[0]).path])
    #expect(saved.status == 0, "\(saved.standardError)")
    #expect(try json(try await run(["readings", meter[0], "--json"])).count == 1)
  }

  @Test func badImagesGetAClearErrorAndThePluginsSurvive() async throws {
    let empty = try writeTemporaryFile("empty.png", [])
    let text = try writeTemporaryFile("text.jpg", Array("not a photo".utf8))
    let tiny = try writeTemporaryFile("tiny.png", TestImages.png(width: 1, height: 1))
    let output = try await run(["read", "--json", empty, text, tiny])
    #expect(output.status == 1)
    let lines = try json(output)
    #expect((lines[0]["error"] as? String)?.contains("the image is empty") == true)
    #expect((lines[1]["error"] as? String)?.contains("not a JPEG, PNG") == true)
    #expect((lines[2]["flags"] as? [String])?.contains("too-small") == true)
    // A 1 x 1 photo is of no registered meter (there are none), never a crash.
    let identify = try json(try await run(["identify", "--json", tiny]))
    #expect(identify.first?["meter"] is NSNull)
    #expect((identify.first?["error"] as? String)?.contains("no meters are registered") == true)
    let statuses = try json(try await run(["plugins", "--json"]))
    #expect(statuses.allSatisfy { ($0["restarts"] as? Double ?? 0) == 0 })
  }

  /// Every recognizer gets every hostile image (Tools/make-hostile-images.py), to read and to
  /// identify among registered meters: each gets an answer or a clear error, no plugin fails.
  @Test func hostileImagesGetAnAnswerOrAClearErrorFromEveryPlugin() async throws {
    let folder = try await Rendered.hostileImages()
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    let paths = names.map { folder.appendingPathComponent($0).path }
    #expect(names.count == 12)
    #expect(try await run(["meter", "add", "Gas", "--reference", "\(folder.path)/grey.png"]).status == 0)
    let refused = [
      "bomb.png": "over the 12000 px a side", "empty.png": "the image is empty", "text.jpg": "not a JPEG, PNG",
      "truncated.jpg": "cut short",
    ]
    for command in ["read", "identify"] {
      let lines = try json(try await run([command, "--json"] + paths))
      #expect(lines.count == names.count)
      for (name, line) in zip(names, lines) {
        if let reason = refused[name] {
          #expect((line["error"] as? String)?.contains(reason) == true, "\(command) \(name): \(line)")
          continue
        }
        #expect(line["error"] == nil, "\(command) \(name): \(line)")
        // A plugin that crashed, hung or threw would show here as an error in its answer.
        let answers = (line["engines"] ?? line["plugins"]) as? [[String: Any]] ?? []
        #expect(!answers.isEmpty, "\(command) \(name)")
        for answer in answers {
          #expect(answer["error"] == nil, "\(command) \(name): \(answer)")
        }
      }
    }
  }

  /// A blood-pressure monitor's display: three lines (systolic, diastolic, pulse), read line by
  /// line and stored as one reading "120/80/70".
  @Test func readsTheThreeFieldsOfABloodPressureMonitor() async throws {
    let folder = try await Rendered.digits("bloodpressure", count: 8, seed: 42)
    let rows = try Rendered.rows(folder.appendingPathComponent("labels.csv"))
    let paths = rows.map { folder.appendingPathComponent($0[0]).path }
    let added = try await run(["meter", "add", "Arm", "--kind", "blood-pressure", "--reference", paths[0]])
    #expect(added.status == 0, "\(added.standardError)")
    let lines = try json(try await run(["read", "--meter", "Arm", "--json"] + paths))
    #expect(lines.count == rows.count)
    let values = lines.map { $0["value"] as? String ?? "" }
    #expect(values.allSatisfy { $0.isEmpty || $0.split(separator: "/").count == 3 }, "\(values)")
    let right = zip(values, rows).filter { $0 == $1[1] }.count
    #expect(right >= 4, "\(values) against \(rows.map { $0[1] })")  // 26-27 of 40 measured
    // Each engine's answer is joined the same way.
    let reader = (lines[0]["engines"] as? [[String: Any]])?.first { $0["engine"] as? String == "reader" }
    #expect((reader?["text"] as? String)?.split(separator: "/").count == 3)

    let saved = try json(try await run(["read", "--meter", "Arm", "--save", "--json", paths[1]]))
    #expect(saved.first?["reading_id"] is Double, "\(saved)")
    let history = try json(try await run(["readings", "Arm", "--json"]))
    #expect(history.map { $0["value"] as? String } == [saved.first?["value"] as? String])
  }
}
