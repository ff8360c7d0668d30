import Foundation
import PhotometerVision
import TestSupport
import Testing

/// A PNG of a grey gradient.
func gradientPNG(width: Int, height: Int) throws -> [UInt8] {
  let pixels = (0..<(width * height)).map { UInt8(truncatingIfNeeded: ($0 % width) * 255 / max(width - 1, 1)) }
  return try VisionImage(pixels: pixels, width: width, height: height, channels: 1).encoded()
}

@Suite struct VisionImageTests {
  @Test func bytesThatAreNoImageAreABadImage() {
    for bytes in [[], Array("not an image".utf8), [0xFF, 0xD8, 0xFF, 0xE0, 0, 16]] as [[UInt8]] {
      do {
        _ = try VisionImage(decoding: bytes)
        Issue.record("\(bytes) decoded")
      } catch {
        #expect(error.kind == .badImage)
      }
    }
  }

  @Test func decodesAndShrinksKeepingTheScale() throws {
    let png = try gradientPNG(width: 800, height: 400)
    let image = try VisionImage(decoding: png)
    #expect((image.width, image.height, image.channels) == (800, 400, 3))
    let small = try VisionImage(decoding: png, maxSide: 200)
    #expect((small.width, small.height) == (200, 100))
    #expect(small.scale == 0.25)
  }

  @Test func aOneByOneImageDecodesAndCropsOutsideItFail() throws {
    let image = try VisionImage(decoding: try gradientPNG(width: 1, height: 1))
    #expect(image.width == 1)
    #expect(throws: VisionError.self) { try image.cropped(x: 5, y: 5, width: 2, height: 2) }
    #expect(throws: VisionError.self) { try image.preparedForDigits(height: 0, border: 0) }
  }

  @Test func encodesAsPNGThatDecodesAgain() throws {
    let image = try VisionImage(decoding: try gradientPNG(width: 64, height: 32))
    let again = try VisionImage(decoding: try image.encoded())
    #expect(again.pixels == image.pixels)
  }
}

@Suite struct TextLineTests {
  /// Blood-pressure displays (Tools/make-digits.py --kind bloodpressure): three lines, top to
  /// bottom, each holding its digits.
  @Test func findsTheThreeLinesOfABloodPressureDisplay() async throws {
    let folder = try await Rendered.digits("bloodpressure", count: 6, seed: 41)
    for row in try Rendered.rows(folder.appendingPathComponent("labels.csv")) {
      let image = try VisionImage(decoding: [UInt8](try Data(contentsOf: folder.appendingPathComponent(row[0]))))
      let lines = try image.textLines(expected: 3)
      #expect(lines.count == 3)
      for (upper, lower) in zip(lines, lines.dropFirst()) {
        #expect(upper.y + upper.height <= lower.y + lower.height / 4, "\(row[0]): \(lines)")
      }
      #expect(lines.allSatisfy { Int($0.height) >= image.height / 8 }, "\(row[0]): \(lines)")
    }
  }

  @Test func fallsBackToEqualBandsOnABlankImage() throws {
    let blank = try VisionImage(pixels: [UInt8](repeating: 200, count: 90 * 30), width: 30, height: 90, channels: 1)
    #expect(try blank.textLines(expected: 3).map(\.y) == [0, 30, 60].map { max(0, $0 - 3) })
    #expect(throws: VisionError.self) { try blank.textLines(expected: 0) }
  }
}
