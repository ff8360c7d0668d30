import Foundation
import PhotometerProtocol
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

  /// A window of `light` with two dark digit-like bars, inside a frame of `frame` pixels of
  /// `dark`; with `inverted`, light digits in a dark window inside a light frame (a wheel).
  func framedWindow(frame: Int, inverted: Bool = false) throws -> VisionImage {
    let width = 80, height = 40
    let (dark, light): (UInt8, UInt8) = inverted ? (230, 20) : (20, 230)
    var pixels = [UInt8](repeating: dark, count: width * height)
    for y in frame..<(height - frame) {
      for x in frame..<(width - frame) {
        let bar = (y >= 14 && y < 26) && ((x >= 25 && x < 31) || (x >= 48 && x < 54))
        pixels[y * width + x] = bar ? dark : light
      }
    }
    return try VisionImage(pixels: pixels, width: width, height: height, channels: 1)
  }

  @Test func findsTheDigitWindowInsideADarkFrame() throws {
    #expect(try framedWindow(frame: 6).digitWindow() == Rect(x: 6, y: 6, width: 68, height: 28))
    // Polarity first: light digits on a dark wheel inside a light housing.
    #expect(try framedWindow(frame: 4, inverted: true).digitWindow() == Rect(x: 4, y: 4, width: 72, height: 32))
    // No frame: the whole crop; a frame never takes more than a quarter of a side.
    #expect(try framedWindow(frame: 0).digitWindow() == Rect(x: 0, y: 0, width: 80, height: 40))
    let dark = try VisionImage(pixels: [UInt8](repeating: 10, count: 80 * 40), width: 80, height: 40, channels: 1)
    let window = try dark.digitWindow()
    #expect(window.width >= 40 && window.height >= 20)
  }
}
