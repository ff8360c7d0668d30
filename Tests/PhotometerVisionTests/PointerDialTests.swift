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

  /// Each meter's dials, read together as the plugin reads them, against their truths.
  static func errors(_ dials: [Dial]) throws -> [Double] {
    var errors: [Double] = []
    var start = 0
    while start < dials.count {
      let meter = dials[start...].prefix { $0.image === dials[start].image }
      let readings = try PointerDial.read(
        meter.map { PointerDial.Placement(region: $0.region, counterClockwise: $0.counterClockwise) },
        in: dials[start].image)
      errors += zip(meter, readings).map { Self.apart($1.value, $0.truth) }
      start += meter.count
    }
    return errors
  }

  @Test func readsRenderedDialsToAFifthOfADivision() async throws {
    let dials = try await Self.dials(count: 15, seed: 3)
    let errors = try await onOwnThread { try Self.errors(dials) }
    #expect(errors.count == 60)
    #expect(errors.filter { $0 <= 0.2 }.count >= 57, "errors: \(errors.map { String(format: "%.2f", $0) })")
    #expect(errors.allSatisfy { $0 <= 0.5 })
  }

  /// A photo turns a meter's dials alike, and only their rings of marks tell how far: a dial whose
  /// ring shows nothing (here painted over in its face's colour) is read with its neighbours' turn.
  @Test func aDialWithoutMarksTakesItsNeighboursTurn() async throws {
    let dials = try await Self.dials(count: 8, seed: 6)
    let (together, alone) = try await onOwnThread {
      var together: [Double] = [], alone: [Double] = []
      for start in stride(from: 0, to: dials.count, by: 4) {
        let meter = Array(dials[start..<start + 4])
        let image = try Self.paintingOverMarks(of: meter[1].region, in: meter[1].image)
        let readings = try PointerDial.read(
          meter.map { PointerDial.Placement(region: $0.region, counterClockwise: $0.counterClockwise) }, in: image)
        together.append(Self.apart(readings[1].value, meter[1].truth))
        alone.append(Self.apart(try PointerDial(in: image, region: meter[1].region).value, meter[1].truth))
      }
      return (together, alone)
    }
    #expect(together.allSatisfy { $0 <= 0.2 }, "errors: \(together.map { String(format: "%.2f", $0) })")
    // Alone, such a dial can only be taken as upright, and the renderer turns its photos up to 8 degrees.
    #expect(together.reduce(0, +) < alone.reduce(0, +), "together \(together), alone \(alone)")
  }

  /// The photo with the ring of the dial in `region` (from 0.6 to 0.95 of the half side: ticks
  /// and numbers) painted in the colour of its face between hub and marks.
  static func paintingOverMarks(of region: Rect, in image: VisionImage) throws -> VisionImage {
    var pixels = image.pixels
    let channels = image.channels
    let (cx, cy) = (Double(region.x) + Double(region.width) / 2, Double(region.y) + Double(region.height) / 2)
    let half = Double(min(region.width, region.height)) / 2
    func offset(_ x: Int, _ y: Int) -> Int { (y * image.width + x) * channels }
    // The face: per channel, the median of twelve points at 0.45 of the half side.
    let face = (0..<channels).map { channel in
      (0..<12).map { step -> UInt8 in
        let angle = Double(step) * Double.pi / 6
        return pixels[offset(Int(cx + 0.45 * half * cos(angle)), Int(cy + 0.45 * half * sin(angle))) + channel]
      }.sorted()[6]
    }
    for y in Int(region.y)..<Int(region.y + region.height) {
      for x in Int(region.x)..<Int(region.x + region.width) {
        let distance = hypot(Double(x) + 0.5 - cx, Double(y) + 0.5 - cy) / half
        if distance >= 0.6 && distance <= 0.95 {
          for channel in 0..<channels {
            pixels[offset(x, y) + channel] = face[channel]
          }
        }
      }
    }
    return try VisionImage(pixels: pixels, width: image.width, height: image.height, channels: channels)
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
