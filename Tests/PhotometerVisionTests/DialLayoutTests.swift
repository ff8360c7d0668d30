import Foundation
import PhotometerProtocol
import TestSupport
import Testing

@testable import PhotometerVision

/// A meter found in a photo by its dials (`PointerDial.locate`), on water meters rendered with a
/// reference photo each (Tools/make-dial-meters.py --references): the reference's regions carried
/// into the photo land on the photo's own dials and digit window.
@Suite struct DialLayoutTests {
  struct Meter {
    var photo: VisionImage
    var reference: VisionImage
    var dials: [Rect]
    var referenceDials: [Rect]
    var wheels: Rect
    var referenceWheels: Rect
  }

  static func meters(count: Int, seed: Int) async throws -> [Meter] {
    let folder = try await Rendered.dialMeters(count: count, seed: seed, references: true)
    return try await onOwnThread {
      try Rendered.rows(folder.appendingPathComponent("labels.csv")).map { row in
        let reference = row[0].replacingOccurrences(of: "meter-", with: "reference-")
        return Meter(
          photo: try image(folder.appendingPathComponent(row[0])),
          reference: try image(folder.appendingPathComponent(reference)), dials: regions(row[3]),
          referenceDials: regions(row[7]), wheels: rect(Substring(row[2])), referenceWheels: rect(Substring(row[6])))
      }
    }
  }

  static func rect(_ text: Substring) -> Rect {
    let numbers = text.split(separator: " ").compactMap { Int32($0) }
    return Rect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
  }

  /// The boxes of a labels.csv dials column ("x y w h:factor:direction;...").
  static func regions(_ text: String) -> [Rect] {
    text.split(separator: ";").map { rect($0.split(separator: ":")[0]) }
  }

  static func image(_ url: URL) throws -> VisionImage {
    try VisionImage(decoding: [UInt8](try Data(contentsOf: url)))
  }

  static func centre(_ rect: Rect) -> (x: Double, y: Double) {
    (Double(rect.x) + Double(rect.width) / 2, Double(rect.y) + Double(rect.height) / 2)
  }

  /// How far `homography` carries each reference dial's centre from the photo's dial's, in the
  /// photo dial's radii; and the digit window's centre from the photo's, in digits (five wheels).
  static func errors(_ meter: Meter, _ homography: [Double]) -> (dials: [Double], window: Double) {
    let dials = zip(meter.referenceDials, meter.dials).map { reference, photo in
      let (carried, truth) = (project(centre(reference), through: homography), centre(photo))
      return hypot(carried.x - truth.x, carried.y - truth.y) / (Double(min(photo.width, photo.height)) / 2)
    }
    let (carried, truth) = (project(centre(meter.referenceWheels), through: homography), centre(meter.wheels))
    return (dials, hypot(carried.x - truth.x, carried.y - truth.y) / (Double(meter.wheels.width) / 5))
  }

  @Test func theDialsLocateTheMeterAndTheFaceStraightensIt() async throws {
    let meters = try await Self.meters(count: 6, seed: 31)
    try await onOwnThread {
      for (index, meter) in meters.enumerated() {
        let similarity = try #require(try PointerDial.locate(meter.referenceDials, in: meter.photo), "meter \(index)")
        let rough = Self.errors(meter, similarity)
        #expect(rough.dials.allSatisfy { $0 < 0.35 }, "meter \(index): \(rough)")
        let refined = try #require(
          try PointerDial.locate(meter.referenceDials, in: meter.photo, reference: meter.reference), "meter \(index)")
        let fine = Self.errors(meter, refined)
        #expect(fine.dials.allSatisfy { $0 < 0.15 }, "meter \(index): \(fine)")
        #expect(fine.window < 0.2, "meter \(index): \(fine)")
        // Coordinates stay the photos' own when either is decoded smaller.
        let small = try VisionImage(decoding: try meter.reference.encoded(), maxSide: 200)
        let smallPhoto = try VisionImage(decoding: try meter.photo.encoded(), maxSide: 300)
        let scaled = try #require(
          try PointerDial.locate(meter.referenceDials, in: smallPhoto, reference: small), "meter \(index)")
        #expect(
          Self.errors(meter, scaled).dials.allSatisfy { $0 < 0.2 }, "meter \(index): \(Self.errors(meter, scaled))")
      }
    }
  }

  /// Circles that no similarity puts three of the dials on locate nothing: a photo without dials,
  /// and a layout the photo's dials do not have (the row three times as long, the dials as large).
  @Test func dialsNotInThePhotoLocateNothing() async throws {
    let meter = try #require(try await Self.meters(count: 1, seed: 32).first)
    try await onOwnThread {
      let blank = try VisionImage(
        pixels: [UInt8](repeating: 180, count: 320 * 240 * 3), width: 320, height: 240, channels: 3)
      #expect(try PointerDial.locate(meter.referenceDials, in: blank) == nil)
      let row = meter.referenceDials
      let spread = row.map { rect in
        var rect = rect
        rect.x = row[0].x + 3 * (rect.x - row[0].x)
        return rect
      }
      #expect(try PointerDial.locate(spread, in: meter.photo) == nil)
    }
  }

  /// Three circles in a row turn up in photos of many things: a device photo is not taken for a
  /// dial meter, neither by its dials' layout alone nor with its reference's face.
  @Test func otherDevicesAreNotTakenForADialMeter() async throws {
    let meter = try #require(try await Self.meters(count: 1, seed: 33).first)
    let folder = try await Rendered.devicePhotos(count: 12, seed: 3)
    let photos = try Rendered.rows(folder.appendingPathComponent("labels.csv")).map {
      folder.appendingPathComponent($0[0])
    }
    try await onOwnThread {
      for photo in photos {
        let image = try Self.image(photo)
        #expect(try PointerDial.locate(meter.referenceDials, in: image) == nil, "\(photo.lastPathComponent)")
        #expect(
          try PointerDial.locate(meter.referenceDials, in: image, reference: meter.reference) == nil,
          "\(photo.lastPathComponent)")
      }
    }
  }

  /// A location that places every dial is told so and left alone; one a fraction of a dial off
  /// and turned a little (as a face locate gone astray leaves it) places none, and the similarity
  /// the dials' shifts agree on puts it back (`PointerDial.fit`, `PointerDial.checked`).
  @Test func theDialsPutAStrayLocationBack() async throws {
    let meters = try await Self.meters(count: 3, seed: 34)
    try await onOwnThread {
      for (index, meter) in meters.enumerated() {
        let right = try #require(
          try PointerDial.locate(meter.referenceDials, in: meter.photo, reference: meter.reference), "meter \(index)")
        let kept = try PointerDial.fit(
          of: right, dials: meter.referenceDials, reference: meter.reference, in: meter.photo)
        #expect(kept.placed == meter.referenceDials.count, "meter \(index): \(kept)")
        // Coordinates stay the photos' own when either is decoded smaller.
        let small = try VisionImage(decoding: try meter.reference.encoded(), maxSide: 200)
        let smallPhoto = try VisionImage(decoding: try meter.photo.encoded(), maxSide: 300)
        let scaled = try PointerDial.fit(of: right, dials: meter.referenceDials, reference: small, in: smallPhoto)
        #expect(scaled.placed == meter.referenceDials.count, "meter \(index): \(scaled)")
        // Turned 2 degrees about the first dial's centre and moved 0.4 of its radius right, in
        // the reference's pixels.
        let pivot = Self.centre(meter.referenceDials[0])
        let step = 0.4 * Double(min(meter.referenceDials[0].width, meter.referenceDials[0].height)) / 2
        let (c, s) = (cos(2 * Double.pi / 180), sin(2 * Double.pi / 180))
        let moveX: Double = pivot.x - c * pivot.x + s * pivot.y + step
        let moveY: Double = pivot.y - s * pivot.x - c * pivot.y
        let stray = PointerDial.composed(right, [c, -s, moveX, s, c, moveY, 0, 0, 1])
        #expect(Self.errors(meter, stray).dials.allSatisfy { $0 > 0.3 }, "meter \(index)")
        let fit = try PointerDial.fit(
          of: stray, dials: meter.referenceDials, reference: meter.reference, in: meter.photo)
        #expect(fit.placed == 0, "meter \(index): \(fit)")
        let corrected = try #require(fit.corrected, "meter \(index)")
        let errors = Self.errors(meter, corrected)
        #expect(errors.dials.allSatisfy { $0 < 0.15 }, "meter \(index): \(errors)")
        let again = try PointerDial.fit(
          of: corrected, dials: meter.referenceDials, reference: meter.reference, in: meter.photo)
        #expect(again.placed == meter.referenceDials.count, "meter \(index): \(again)")
        // The host's check: the right location stands as it is, the stray one is put back.
        #expect(
          PointerDial.checked(right, dials: meter.referenceDials, reference: meter.reference, in: meter.photo)
            == right)
        let checked = PointerDial.checked(
          stray, dials: meter.referenceDials, reference: meter.reference, in: meter.photo)
        #expect(Self.errors(meter, checked).dials.allSatisfy { $0 < 0.15 }, "meter \(index)")
      }
    }
  }

  @Test func oneDialIsRefused() throws {
    let image = try VisionImage(pixels: [UInt8](repeating: 200, count: 80 * 80 * 3), width: 80, height: 80, channels: 3)
    #expect(throws: VisionError.self) {
      try PointerDial.locate([Rect(x: 10, y: 10, width: 40, height: 40)], in: image)
    }
  }
}
