import Foundation
import PhotometerProtocol
import PhotometerStore
import TestSupport
import Testing

@Suite struct MeterStoreTests {
  let path: String
  let store: MeterStore
  let photo = Image(data: TestImages.png(1, width: 640, height: 480), name: "gas.png")

  init() async throws {
    path =
      Scratch.folder.appendingPathComponent("photometer-\(UUID().uuidString)/meters.sqlite")
      .path
    store = try MeterStore(path: path)
  }

  func addGas() async throws -> Meter {
    try await store.addMeter(
      Meter(
        name: "Gas", kind: .gas, roi: Rect(x: 10, y: 20, width: 200, height: 40), digits: 8, decimals: 3,
        countsUp: true,
        range: 0...99_999),
      references: [photo])
  }

  /// A small PNG crop, one for each `index`.
  static func crop(_ index: Int) -> [UInt8] {
    TestImages.png(index, width: 8, height: 8)
  }

  func error(_ body: () async throws -> Void) async -> StoreError? {
    do {
      try await body()
      return nil
    } catch {
      return error as? StoreError
    }
  }

  @Test func registersAMeterWithItsPhotoAndCanonicalUnit() async throws {
    let meter = try await addGas()
    #expect(meter.unit == "m3")
    #expect(meter.references.count == 1)
    #expect(meter.references[0].width == 640)
    #expect(meter.references[0].sha256.count == 64)
    #expect(try await store.meter(named: "gAS").id == meter.id)
    #expect(try await store.meter(named: "Gas", includePhotos: true).references[0].image?.data == photo.data)
    #expect(try await store.references().map(\.meter) == ["Gas"])
    #expect(try await store.integrityCheck() == "ok")
  }

  @Test func referencesComeBareAndTheirImagesBySHA256() async throws {
    _ = try await addGas()
    let full = try await store.references()
    let bare = try await store.references(images: false)
    #expect(bare.map(\.sha256) == full.map(\.sha256) && bare.map(\.roi) == full.map(\.roi))
    #expect(bare.allSatisfy { $0.image.data.isEmpty } && full.allSatisfy { $0.image.data == photo.data })
    let images = try await store.referenceImages([full[0].sha256, "not-a-photo"])
    #expect(images.count == 1 && images[full[0].sha256]?.data == photo.data)
  }

  /// Every meter's references, or one meter's, by meter and then in the order they were added,
  /// each with its meter's region; the same with and without their bytes.
  @Test func referencesComeByMeterInTheOrderAdded() async throws {
    _ = try await addGas()
    let photos = (2...6).map { Image(data: TestImages.png($0, width: 64, height: 48), name: "water-\($0).png") }
    _ = try await store.addMeter(
      Meter(name: "Water", kind: .water, roi: Rect(x: 1, y: 2, width: 30, height: 10)), references: photos)
    let full = try await store.references()
    let bare = try await store.references(images: false)
    #expect(full.map(\.meter) == ["Gas"] + Array(repeating: "Water", count: 5))
    #expect(Array(full.dropFirst().map(\.image.data)) == photos.map(\.data))
    #expect(bare.map(\.sha256) == full.map(\.sha256) && bare.map(\.roi) == full.map(\.roi))
    #expect(full.first?.roi == Rect(x: 10, y: 20, width: 200, height: 40))
    #expect(full.last?.roi == Rect(x: 1, y: 2, width: 30, height: 10))
    let water = try await store.references(of: "WATER", images: false)
    #expect(water.map(\.sha256) == Array(full.dropFirst().map(\.sha256)))
  }

  /// Every meter's bare references are kept between identifies, and read again once the file
  /// changes: by this store, or by another connection (another process's `meter add`).
  @Test func keptReferencesFollowEveryChangeToTheFile() async throws {
    _ = try await addGas()
    #expect(try await store.references(images: false).map(\.meter) == ["Gas"])
    let other = try MeterStore(path: path)
    _ = try await other.addMeter(
      Meter(name: "Water", kind: .water, roi: Rect(x: 1, y: 2, width: 30, height: 10)),
      references: [Image(data: TestImages.png(2, width: 64, height: 48), name: "water.png")])
    #expect(try await store.references(images: false).map(\.meter) == ["Gas", "Water"])
    _ = try await other.removeMeter(named: "Gas", withReadings: true)
    #expect(try await store.references(images: false).map(\.meter) == ["Water"])
    _ = try await store.addMeter(
      Meter(name: "Power", kind: .electricity, roi: Rect(x: 5, y: 5, width: 20, height: 10)),
      references: [Image(data: TestImages.png(3, width: 64, height: 48), name: "power.png")])
    let kept = try await store.references(images: false)
    #expect(kept.map(\.meter) == ["Water", "Power"])
    #expect(try await store.references(images: false).map(\.sha256) == kept.map(\.sha256))
    #expect(try await other.references(images: false).map(\.meter) == ["Water", "Power"])
  }

  /// The household's name for plugins (``MeterStore/household()``) follows what plugins match on
  /// (meters, photos, the window they are told is surely the meter) and nothing else: a saved
  /// reading must not make every plugin be sent the household again.
  @Test func theHouseholdsNameChangesWithItsReferencesAndNotWithReadings() async throws {
    _ = try await addGas()
    let first = try await store.household()
    #expect(first.referenceSet.count == 64)
    #expect(first.references.map(\.meter) == ["Gas"])
    _ = try await store.addReading(AddReadingRequest(meter: "Gas", value: "1", takenAt: 1))
    #expect(try await store.household().referenceSet == first.referenceSet)
    var moved = try await store.meter(named: "Gas")
    moved.roi = Rect(x: 11, y: 20, width: 200, height: 40)
    _ = try await store.editMeter(EditMeterRequest(name: "Gas", changes: moved, fields: ["roi"]))
    let edited = try await store.household().referenceSet
    #expect(edited != first.referenceSet)
    _ = try await store.addMeter(
      Meter(name: "Water", kind: .water, roi: Rect(x: 1, y: 2, width: 30, height: 10)),
      references: [Image(data: TestImages.png(2, width: 64, height: 48), name: "water.png")])
    let added = try await store.household()
    #expect(added.references.map(\.meter) == ["Gas", "Water"])
    #expect(![first.referenceSet, edited].contains(added.referenceSet))
    _ = try await store.removeMeter(named: "Water", withReadings: true)
    #expect(try await store.household().referenceSet == edited)
  }

  @Test func keepsPhotosAndCropsAsBlobsOfTheirOwnSize() async throws {
    _ = try await addGas()
    let crop = TestImages.png(3, width: 8, height: 8)
    _ = try await store.addReading(AddReadingRequest(meter: "Gas", value: "1", takenAt: 1, crop: crop))
    let sql =
      "SELECT typeof(data) || ' ' || length(data) FROM referencePhoto UNION ALL SELECT typeof(crop) || ' ' || length(crop) FROM reading"
    let output = try await runCommand(
      "/usr/bin/env",
      [
        "python3", "-c", "import sqlite3,sys; [print(r[0]) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])]",
        path, sql,
      ])
    #expect(output.lines == ["blob \(photo.data.count)", "blob \(crop.count)"])
  }

  @Test func refusesBadMeters() async throws {
    _ = try await addGas()
    #expect(await error { _ = try await addGas() } == .duplicateMeter("Gas"))
    #expect(
      await error { _ = try await store.addMeter(Meter(name: "GAS", kind: .gas), references: [photo]) }
        == .duplicateMeter("GAS"))
    #expect(
      await error { _ = try await store.addMeter(Meter(name: "Water", kind: .water), references: []) }?.description
        .contains(
          "reference photo") == true)
    #expect(
      await error {
        _ = try await store.addMeter(Meter(name: "Water", kind: .water), references: [Image(data: Array("text".utf8))])
      }
        == .badImage("the data is not a JPEG, PNG, BMP or WebP image"))
    #expect(
      await error {
        _ = try await store.addMeter(Meter(name: "Water", kind: .water, unit: "kWh"), references: [photo])
      }?
      .description
      .contains("not a unit for a water meter") == true)
    #expect(
      await error {
        _ = try await store.addMeter(
          Meter(name: "Water", kind: .water, roi: Rect(x: 600, y: 0, width: 100, height: 10)), references: [photo])
      }?.description.contains("does not fit") == true)
    #expect(try await store.meters().map(\.name) == ["Gas"])
  }

  @Test func namesAreOneMeterAcrossCaseAndNormalFormsAndMustBePrintable() async throws {
    let composed = "K\u{00FC}che Z\u{00C4}hler"  // Küche ZÄhler, ü and Ä as one character each
    let decomposed = "ku\u{0308}che za\u{0308}hler"  // küche zähler, the marks apart, in lower case
    let added = try await store.addMeter(Meter(name: decomposed, kind: .water), references: [photo])
    #expect(
      added.name.unicodeScalars.elementsEqual(
        "ku\u{0308}che za\u{0308}hler".precomposedStringWithCanonicalMapping.unicodeScalars))
    #expect(
      await error { _ = try await store.addMeter(Meter(name: composed, kind: .water), references: [photo]) }
        == .duplicateMeter(composed))
    #expect(try await store.meter(named: composed).id == added.id)
    for bad in ["Gas\u{1B}[2J", "Gas\u{202E}rab", "two\nlines", String(repeating: "x", count: 10_000)] {
      #expect(
        await error { _ = try await store.addMeter(Meter(name: bad, kind: .gas), references: [photo]) }?.description
          .contains("a meter name") == true, "\(bad.debugDescription.prefix(40))")
    }
    // Emoji sequences keep their zero-width joiners.
    #expect(
      try await store.addMeter(Meter(name: "Bad \u{1F469}\u{200D}\u{1F467}", kind: .gas), references: [photo]).id > 0)
    #expect(try await store.meters().count == 2)
  }

  /// An ASCII name finds a stored name that only folding makes its own (a long s is an s), and a
  /// name with spaces around it finds the stored one, whatever their case.
  @Test func asciiNamesFindStoredNamesThatFoldToThem() async throws {
    let longS = try await store.addMeter(Meter(name: "Tank \u{017F}1", kind: .water), references: [photo])
    let gas = try await addGas()
    #expect(try await store.meter(named: "tank s1").id == longS.id)
    #expect(try await store.meter(named: "  gAs ").id == gas.id)
    #expect(
      await error { _ = try await store.addMeter(Meter(name: "TANK S1", kind: .water), references: [photo]) }
        == .duplicateMeter("TANK S1"))
    #expect(await error { _ = try await store.meter(named: "tank s2") } == .meterNotFound("tank s2"))
  }

  @Test func importTakesNamesByTheSameRules() async throws {
    let header = try await store.exportCSV().csv.split(separator: "\n")[0].split(separator: ",").map(String.init)
    for (name, reason) in [(String(repeating: "x", count: 10_000), "1 to 100"), ("a\u{1B}b", "U+001B")] {
      let values = [
        "record": "meter", "meter": name, "kind": "gas", "unit": "m3", "created_at": "1", "digits": "0",
        "decimals": "0", "counts_up": "false",
      ]
      let csv =
        header.joined(separator: ",") + "\n" + header.map { values[$0, default: ""] }.joined(separator: ",") + "\n"
      let message = await error { _ = try await store.importCSV(csv) }?.description ?? "no error"
      #expect(message.contains("CSV line 2") && message.contains(reason), "\(message.prefix(80))")
    }
    #expect(try await store.meters().isEmpty)
  }

  @Test func refusesACropThatIsNotAnImage() async throws {
    _ = try await addGas()
    let notAnImage = [UInt8](repeating: 0x41, count: 1 << 20)
    #expect(
      await error { _ = try await store.addReading(AddReadingRequest(meter: "Gas", value: "1", crop: notAnImage)) }
        == .badImage("the reading's crop: the data is not a JPEG, PNG, BMP or WebP image"))
    let crop = TestImages.png(2, width: 40, height: 20)
    #expect(try await store.addReading(AddReadingRequest(meter: "Gas", value: "1", crop: crop)).id > 0)
  }

  @Test func storesReadingsExactlyAsReadAndConvertsOnTheWayOut() async throws {
    _ = try await addGas()
    let reading = try await store.addReading(
      AddReadingRequest(meter: "gas", value: "01234,567", takenAt: 1_700_000_000_000))
    #expect(reading.value == "01234.567")
    #expect(reading.numeric == 1234.567)
    #expect(reading.unit == "m3")
    #expect(reading.source == .manual)
    let inLitres = try await store.readings(ListReadingsRequest(meter: "Gas", unit: "l"))
    #expect(inLitres.map(\.displayValue) == ["1234567"])
    #expect(inLitres.map(\.displayUnit) == ["L"])
    #expect(inLitres.map(\.value) == ["01234.567"])
  }

  @Test func listsCropsOnlyWhenAskedAndTheLatestReadingsWithALimit() async throws {
    _ = try await addGas()
    for index in 1...5 {
      _ = try await store.addReading(
        AddReadingRequest(meter: "Gas", value: "\(index)", takenAt: Int64(index), crop: Self.crop(index)))
    }
    let plain = try await store.readings(ListReadingsRequest(meter: "Gas"))
    #expect(plain.map(\.value) == ["1", "2", "3", "4", "5"])
    #expect(plain.allSatisfy { $0.crop.isEmpty })
    let latest = try await store.readings(ListReadingsRequest(meter: "Gas", withCrops: true, limit: 2))
    #expect(latest.map(\.value) == ["4", "5"])
    #expect(latest.map(\.crop) == [Self.crop(4), Self.crop(5)])
    let window = try await store.readings(ListReadingsRequest(meter: "Gas", to: 3, limit: 2))
    #expect(window.map(\.value) == ["2", "3"])
  }

  @Test func convertsGlucoseAndTemperature() async throws {
    _ = try await store.addMeter(Meter(name: "Sugar", kind: .glucose), references: [photo])
    _ = try await store.addReading(AddReadingRequest(meter: "Sugar", value: "100", takenAt: 1))
    #expect(try await store.readings(ListReadingsRequest(meter: "Sugar", unit: "mmol/L")).first?.displayValue == "5.55")
    _ = try await store.addMeter(Meter(name: "Fever", kind: .thermometer), references: [photo])
    _ = try await store.addReading(AddReadingRequest(meter: "Fever", value: "36.6", takenAt: 1))
    #expect(try await store.readings(ListReadingsRequest(meter: "Fever", unit: "F")).first?.displayValue == "97.9")
    #expect(Units.convert(97.88, from: "F", to: "C", kind: .thermometer).rounded() == 37)
  }

  @Test func refusesBadReadingsAndChangesNothing() async throws {
    _ = try await addGas()
    _ = try await store.addMeter(Meter(name: "Sugar", kind: .glucose), references: [photo])
    #expect(
      await error { _ = try await store.addReading(AddReadingRequest(meter: "Nope", value: "1")) }
        == .meterNotFound("Nope"))
    #expect(
      await error { _ = try await store.addReading(AddReadingRequest(meter: "Gas", value: "12a")) }
        == .invalid("'12a' is not a number"))
    #expect(
      await error { _ = try await store.addReading(AddReadingRequest(meter: "Gas", value: "-5")) }?.description
        .contains("range")
        == true)
    #expect(
      await error { _ = try await store.addReading(AddReadingRequest(meter: "Sugar", value: "900")) }?.description
        .contains(
          "physical range") == true)
    let tomorrow = Int64(Date().timeIntervalSince1970 * 1000) + 86_400_000
    #expect(
      await error { _ = try await store.addReading(AddReadingRequest(meter: "Gas", value: "1", takenAt: tomorrow)) }?
        .description
        .contains("in the future") == true)
    #expect(try await store.readings(ListReadingsRequest(meter: "Gas")).isEmpty)
  }

  @Test func takesTheTimeFromThePhotosEXIF() async throws {
    _ = try await addGas()
    let jpeg = ImageSamples.jpeg(date: "2025:06:01 12:00:00", offset: "+02:00")
    let reading = try await store.addReading(AddReadingRequest(meter: "Gas", value: "5", photo: Image(data: jpeg)))
    #expect(reading.takenAt == 1_748_772_000_000)
  }

  @Test func confirmsAndCorrectsReadings() async throws {
    _ = try await addGas()
    let reading = try await store.addReading(
      AddReadingRequest(meter: "Gas", value: "100.5", takenAt: 1, source: .ocr, confidence: 0.7))
    let confirmed = try await store.confirmReading(id: reading.id, value: nil)
    #expect(confirmed.verified && confirmed.source == .ocr && confirmed.value == "100.5")
    let corrected = try await store.confirmReading(id: reading.id, value: "100.8")
    #expect(corrected.verified && corrected.source == .corrected && corrected.value == "100.8")
    #expect(await error { _ = try await store.confirmReading(id: 999, value: nil) } == .readingNotFound(999))
    try await store.deleteReading(id: reading.id)
    #expect(await error { try await store.deleteReading(id: reading.id) } == .readingNotFound(reading.id))
  }

  @Test func keepsEachEnginesAnswer() async throws {
    _ = try await addGas()
    let engines = [
      EngineAnswer(
        plugin: "tesseract", version: "5.3", outcome: .success(EngineReading(text: "100", confidence: 0.4)),
        milliseconds: 30, voted: true),
      EngineAnswer(
        plugin: "templates", version: "1", outcome: .failure(ErrorReply(.timeout, "slow")), milliseconds: 900,
        voted: false),
    ]
    let reading = try await store.addReading(
      AddReadingRequest(meter: "Gas", value: "100", takenAt: 1, source: .ocr, engines: engines))
    let stored = try await store.readings(ListReadingsRequest(meter: "Gas")).first
    #expect(stored?.engines.map(\.plugin) == ["tesseract", "templates"])
    #expect(stored?.engines.first?.value?.text == "100")
    #expect(stored?.engines.last?.voted == false)
    #expect(reading.engines.count == 2)
  }

  @Test func listsReadingsBetweenTwoTimes() async throws {
    _ = try await addGas()
    for (index, time) in [3_000, 1_000, 2_000, 4_000].enumerated() {
      _ = try await store.addReading(
        AddReadingRequest(meter: "Gas", value: "\(index)", takenAt: Int64(time), force: true))
    }
    #expect(try await store.readings(ListReadingsRequest(meter: "Gas")).map(\.takenAt) == [1_000, 2_000, 3_000, 4_000])
    #expect(
      try await store.readings(ListReadingsRequest(meter: "Gas", from: 2_000, to: 3_000)).map(\.value) == ["2", "0"])
  }

  @Test func findsTheLatestReadingAlone() async throws {
    _ = try await addGas()
    #expect(try await store.latestReading(of: "Gas") == nil)
    for (index, time) in [3_000, 1_000, 4_000, 2_000].enumerated() {
      _ = try await store.addReading(
        AddReadingRequest(meter: "Gas", value: "\(index)", takenAt: Int64(time), force: true))
    }
    #expect(try await store.latestReading(of: "gas")?.value == "2")
    #expect(await error { _ = try await store.latestReading(of: "Water") } == .meterNotFound("Water"))
  }

  @Test func examplesAreTheLatestConfirmedReadingsWithACrop() async throws {
    _ = try await addGas()
    var ids: [Int64] = []
    for index in 1...4 {
      let crop: [UInt8] = index == 2 ? [] : Self.crop(index)
      ids.append(
        try await store.addReading(
          AddReadingRequest(meter: "Gas", value: "\(index)", takenAt: Int64(index), source: .ocr, crop: crop)
        ).id)
    }
    #expect(try await store.examples(of: "Gas", limit: 10).isEmpty)
    _ = try await store.confirmReading(id: ids[0], value: nil)
    _ = try await store.confirmReading(id: ids[1], value: nil)  // no crop: teaches nothing
    _ = try await store.confirmReading(id: ids[3], value: "7")
    let bare = try await store.examples(of: "Gas", limit: 10)
    #expect(bare == [Example(key: "\(ids[3]):7", value: "7"), Example(key: "\(ids[0]):1", value: "1")])
    let full = try await store.examples(of: "gas", limit: 1, crops: true)
    #expect(full == [Example(key: "\(ids[3]):7", value: "7", crop: Self.crop(4))])
  }

  @Test func aReadsContextIsTheMeterItsExamplesAndItsLatestReading() async throws {
    _ = try await addGas()
    let first = try await store.addReading(
      AddReadingRequest(meter: "Gas", value: "1", takenAt: 1, source: .ocr, crop: Self.crop(1)))
    let second = try await store.addReading(
      AddReadingRequest(meter: "Gas", value: "2", takenAt: 2, source: .ocr, crop: Self.crop(2)))
    _ = try await store.confirmReading(id: first.id, value: nil)
    let context = try await store.readingContext(of: "gas", examples: 5)
    #expect(context.meter.name == "Gas")
    #expect(context.examples == [Example(key: "\(first.id):1", value: "1")])
    // What plausibility needs, without the crop.
    #expect(context.latest?.id == second.id && context.latest?.value == "2" && context.latest?.takenAt == 2)
    #expect(context.latest?.numeric == 2 && context.latest?.unit == "m3" && context.latest?.crop == [])
    #expect(await error { _ = try await store.readingContext(of: "Water", examples: 5) } == .meterNotFound("Water"))
  }

  @Test func editsAMeter() async throws {
    _ = try await addGas()
    let more = Image(data: TestImages.png(2, width: 640, height: 480))
    let edited = try await store.editMeter(
      EditMeterRequest(
        name: "gas", changes: Meter(name: "Gas (cellar)", kind: .gas, notes: "behind the door"),
        fields: ["name", "notes"], addReferences: [more]))
    #expect(edited.name == "Gas (cellar)" && edited.notes == "behind the door" && edited.references.count == 2)
    #expect(edited.digits == 8)
    #expect(
      await error {
        _ = try await store.editMeter(EditMeterRequest(name: "Gas (cellar)", changes: edited, fields: ["colour"]))
      }?
      .description.contains("not a meter field") == true)
    #expect(
      await error { _ = try await store.editMeter(EditMeterRequest(name: "Gas", changes: edited, fields: ["notes"])) }
        == .meterNotFound("Gas"))
  }

  @Test func removesAMeterWithItsReadingsOnlyWhenTold() async throws {
    _ = try await addGas()
    _ = try await store.addReading(AddReadingRequest(meter: "Gas", value: "1", takenAt: 1))
    #expect(
      await error { _ = try await store.removeMeter(named: "Gas", withReadings: false) }
        == .meterHasReadings("Gas", count: 1))
    #expect(try await store.removeMeter(named: "Gas", withReadings: true) == 1)
    #expect(try await store.meters().isEmpty)
    #expect(try await store.references().isEmpty)
  }

  @Test func twoStoresShareOneFile() async throws {
    _ = try await addGas()
    let other = try MeterStore(path: path)
    await withTaskGroup(of: Void.self) { group in
      for (index, store) in [store, other].enumerated() {
        group.addTask {
          for value in 0..<200 {
            _ = try? await store.addReading(
              AddReadingRequest(meter: "Gas", value: "\(index * 1000 + value)", takenAt: 1, force: true))
          }
        }
      }
    }
    #expect(try await store.readings(ListReadingsRequest(meter: "Gas")).count == 400)
    #expect(try await other.integrityCheck() == "ok")
  }
}
