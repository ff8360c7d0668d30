import Foundation
import PhotometerProtocol
import PhotometerStore
import TestSupport
import Testing

/// A water meter's pointer dials in the store: kept in order, replaced or removed by an edit,
/// checked against the wheels' decimals, carried by export and import; and a counter whose last
/// wheel's roll is read as a decimal (`extended`).
@Suite struct MeterDialTests {
  let store: MeterStore
  let photo = Image(data: TestImages.png(1, width: 640, height: 480), name: "water.png")
  let dials = [
    Dial(region: Rect(x: 10, y: 200, width: 90, height: 90), factor: 0.1),
    Dial(region: Rect(x: 110, y: 200, width: 90, height: 90), factor: 0.01, counterClockwise: true),
  ]

  init() async throws {
    store = try MeterStore(
      path: Scratch.folder.appendingPathComponent("photometer-\(UUID().uuidString)/meters.sqlite").path)
  }

  @Test func dialsAreKeptInOrderAndAnEditReplacesOrRemovesThem() async throws {
    let added = try await store.addMeter(
      Meter(name: "Water", kind: .water, digits: 5, dials: dials), references: [photo])
    #expect(added.dials == dials)
    #expect(try await store.meter(named: "water").dials == dials)
    let one = try await store.editMeter(
      EditMeterRequest(name: "Water", changes: Meter(name: "Water", kind: .water, dials: [dials[0]]), fields: ["dials"])
    )
    #expect(one.dials == [dials[0]])
    let renamed = try await store.editMeter(
      EditMeterRequest(name: "Water", changes: Meter(name: "Cold", kind: .water), fields: ["name"]))
    #expect(renamed.dials == [dials[0]])
    let none = try await store.editMeter(
      EditMeterRequest(name: "Cold", changes: Meter(name: "Cold", kind: .water), fields: ["dials"]))
    #expect(none.dials.isEmpty)
  }

  @Test func aReferenceIsLearntAroundTheWindowAndTheDials() async throws {
    _ = try await store.addMeter(
      Meter(name: "Water", kind: .water, roi: Rect(x: 60, y: 40, width: 200, height: 50), digits: 5, dials: dials),
      references: [photo])
    _ = try await store.addMeter(
      Meter(name: "Gas", kind: .gas, roi: Rect(x: 5, y: 6, width: 70, height: 20)), references: [photo])
    let regions = Dictionary(uniqueKeysWithValues: try await store.references().map { ($0.meter, $0.roi) })
    #expect(regions["Water"] == Rect(x: 10, y: 40, width: 250, height: 250))
    #expect(regions["Gas"] == Rect(x: 5, y: 6, width: 70, height: 20))
  }

  /// A dial past the reference photo's edge is refused when typed; one restored from an export
  /// made before that check (here written into the export) must still give its meter a region.
  @Test func aDialAtTheFarEndOfInt32StillGivesItsReferenceARegion() async throws {
    let far = Dial(region: Rect(x: .max - 10, y: 200, width: 90, height: 90), factor: 0.1)
    let window = Rect(x: 60, y: 40, width: 200, height: 50)
    let refused = await #expect(throws: StoreError.self) {
      _ = try await store.addMeter(Meter(name: "Water", kind: .water, roi: window, dials: [far]), references: [photo])
    }
    #expect(refused?.description.contains("dial 1's region") == true)
    _ = try await store.addMeter(
      Meter(name: "Water", kind: .water, roi: window, dials: [dials[0]]), references: [photo])
    let csv = try await store.exportCSV().csv
    #expect(csv.contains("10,200,90,90:0.1"))
    let restored = try MeterStore(
      path: Scratch.folder.appendingPathComponent("photometer-\(UUID().uuidString)/meters.sqlite").path)
    _ = try await restored.importCSV(
      csv.replacingOccurrences(of: "10,200,90,90:0.1", with: "\(Int32.max - 10),200,90,90:0.1"))
    #expect(try await restored.meter(named: "Water").dials == [far])
    let region = try #require(try await restored.references(images: false).first?.roi)
    #expect(region.x == 60 && region.y == 40 && region.width == .max && region.height == 250)
  }

  /// Regions are in the reference photos' pixels: a window or dial past a photo's edge, typed
  /// when the meter is added or edited, or kept when a smaller photo is added, is refused.
  @Test func windowAndDialsMustLieInsideEveryReferencePhoto() async throws {
    let outside = Dial(region: Rect(x: 600, y: 200, width: 90, height: 90), factor: 0.1)
    let error = await #expect(throws: StoreError.self) {
      _ = try await store.addMeter(Meter(name: "Water", kind: .water, dials: [outside]), references: [photo])
    }
    #expect(error?.description.contains("dial 1's region") == true)
    #expect(error?.description.contains("640x480") == true)
    _ = try await store.addMeter(Meter(name: "Water", kind: .water, digits: 5, dials: dials), references: [photo])
    await #expect(throws: StoreError.self) {
      _ = try await store.editMeter(
        EditMeterRequest(
          name: "Water", changes: Meter(name: "Water", kind: .water, dials: [outside]), fields: ["dials"]))
    }
    await #expect(throws: StoreError.self) {
      _ = try await store.editMeter(
        EditMeterRequest(
          name: "Water", changes: Meter(name: "Water", kind: .water, roi: Rect(x: 500, y: 0, width: 200, height: 50)),
          fields: ["roi"]))
    }
    let small = Image(data: TestImages.png(2, width: 160, height: 120), name: "small.png")
    await #expect(throws: StoreError.self) {
      _ = try await store.editMeter(
        EditMeterRequest(name: "Water", changes: Meter(name: "Water", kind: .water), fields: [], addReferences: [small])
      )
    }
    let kept = try await store.meter(named: "Water")
    #expect(kept.dials == dials && kept.roi == nil && kept.references.count == 1)
    let notes = try await store.editMeter(
      EditMeterRequest(name: "Water", changes: Meter(name: "Water", kind: .water, notes: "cellar"), fields: ["notes"]))
    #expect(notes.notes == "cellar")
  }

  @Test func dialsMustFollowTheWheelsDecimalByDecimal() async throws {
    do {
      _ = try await store.addMeter(
        Meter(name: "Water", kind: .water, decimals: 1, dials: dials), references: [photo])
      Issue.record("dials x0.1, x0.01 were taken for a meter whose wheels show tenths")
    } catch {
      #expect("\(error)".contains("x0.01, x0.001"), "\(error)")
    }
    #expect(try await store.meters().isEmpty)
  }

  @Test func anExtendedCounterKeepsItsSetting() async throws {
    #expect(try await store.addMeter(Meter(name: "Gas", kind: .gas, extended: true), references: [photo]).extended)
    let edited = try await store.editMeter(
      EditMeterRequest(name: "Gas", changes: Meter(name: "Gas", kind: .gas), fields: ["extended"]))
    #expect(!edited.extended)
  }

  @Test func exportAndImportCarryTheDials() async throws {
    _ = try await store.addMeter(Meter(name: "Water", kind: .water, dials: dials), references: [photo])
    _ = try await store.addMeter(Meter(name: "Gas", kind: .gas, extended: true), references: [photo])
    let csv = try await store.exportCSV().csv
    let copy = try MeterStore(
      path: Scratch.folder.appendingPathComponent("photometer-\(UUID().uuidString)/meters.sqlite").path)
    _ = try await copy.importCSV(csv)
    #expect(try await copy.meter(named: "Water").dials == dials)
    #expect(try await copy.meter(named: "Gas").extended)
    #expect(try await copy.exportCSV().csv == csv)
  }
}
