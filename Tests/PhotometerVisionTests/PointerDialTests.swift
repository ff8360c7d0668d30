import Foundation
import PhotometerProtocol
import PhotometerVision
import TestSupport
import Testing

/// The pointer dial reader on water meters rendered in the style it was designed on
/// (Tools/make-dial-meters.py); the style it never saw is measured by photometer-benchmark-dials.
@Suite struct PointerDialTests {
  struct Dial {
    var image: VisionImage
    var region: Rect
    var counterClockwise: Bool
    var truth: Double
  }

  static func dials(count: Int, seed: Int) async throws -> [Dial] {
    let folder = try await Rendered.dialMeters(count: count, seed: seed)
    return try await onOwnThread {
      var dials: [Dial] = []
      for row in try Rendered.rows(folder.appendingPathComponent("labels.csv")) {
        let image = try VisionImage(decoding: [UInt8](try Data(contentsOf: folder.appendingPathComponent(row[0]))))
        let truths = row[4].split(separator: "|").compactMap { Double($0) }
        for (setting, truth) in zip(row[3].split(separator: ";"), truths) {
          let parts = setting.split(separator: ":")
          let box = parts[0].split(separator: " ").compactMap { Int32($0) }
          dials.append(
            Dial(
              image: image, region: Rect(x: box[0], y: box[1], width: box[2], height: box[3]),
              counterClockwise: parts[2] == "ccw", truth: truth))
        }
      }
      return dials
    }
  }

  /// Distance on the dial's circle, in divisions.
  static func apart(_ a: Double, _ b: Double) -> Double {
    let difference = abs(a - b).truncatingRemainder(dividingBy: 10)
    return min(difference, 10 - difference)
  }

  @Test func readsRenderedDialsToAFifthOfADivision() async throws {
    let dials = try await Self.dials(count: 15, seed: 3)
    let errors = try await onOwnThread {
      try dials.map { dial in
        Self.apart(
          try PointerDial(in: dial.image, region: dial.region, counterClockwise: dial.counterClockwise).value,
          dial.truth)
      }
    }
    #expect(errors.count == 60)
    #expect(errors.filter { $0 <= 0.2 }.count >= 57, "errors: \(errors.map { String(format: "%.2f", $0) })")
    #expect(errors.allSatisfy { $0 <= 0.5 })
  }

  @Test func anticlockwiseNumbersMirrorTheReading() async throws {
    let dials = try await Self.dials(count: 2, seed: 4)
    try await onOwnThread {
      for dial in dials {
        let clockwise = try PointerDial(in: dial.image, region: dial.region).value
        let anticlockwise = try PointerDial(in: dial.image, region: dial.region, counterClockwise: true).value
        #expect(Self.apart(clockwise + anticlockwise, 10) < 0.001)
      }
    }
  }

  @Test func aBlankRegionIsNoConfidentReading() throws {
    let image = try VisionImage(pixels: [UInt8](repeating: 200, count: 80 * 80 * 3), width: 80, height: 80, channels: 3)
    #expect(try PointerDial(in: image, region: Rect(x: 0, y: 0, width: 80, height: 80)).confidence < 0.2)
  }

  @Test func aRegionOutsideTheImageIsRefused() throws {
    let image = try VisionImage(pixels: [UInt8](repeating: 200, count: 80 * 80 * 3), width: 80, height: 80, channels: 3)
    #expect(throws: VisionError.self) {
      try PointerDial(in: image, region: Rect(x: 100, y: 100, width: 20, height: 20))
    }
  }
}
