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

  /// A JPEG at least twice the size wanted is decoded scaled down by libjpeg, and shrunk the rest
  /// of the way: the same size and scale as a whole decode shrunk, near the same pixels.
  @Test func decodesALargeJPEGScaledDown() throws {
    let pixels = (0..<(1800 * 900)).map { UInt8(truncatingIfNeeded: ($0 % 1800) / 8 + ($0 / 1800) / 8) }
    let jpeg = try VisionImage(pixels: pixels, width: 1800, height: 900, channels: 1).encoded(jpeg: true)
    for side in [200, 640, 900] {
      let image = try VisionImage(decoding: jpeg, maxSide: side)
      #expect((image.width, image.height) == (side, side / 2))
      #expect(abs(image.scale - Double(side) / 1800) < 1e-9)
    }
    let whole = try VisionImage(decoding: jpeg)
    #expect((whole.width, whole.height, whole.scale) == (1800, 900, 1))
    // The middle pixel, decoded at a quarter and shrunk, against the whole photo's there.
    let small = try VisionImage(decoding: jpeg, maxSide: 400)
    let middle = Int(small.pixels[(100 * 400 + 200) * 3])
    let taken = Int(whole.pixels[(450 * 1800 + 900) * 3])
    #expect(abs(middle - taken) <= 4, "\(middle) against \(taken)")
  }

  /// Reduced to at least a side, a JPEG is decoded at the smallest of a half, a quarter or an
  /// eighth of its size that keeps its longer side there, with no resizing after; a photo
  /// already under twice the side, and any PNG, decode whole, unless held at most to a side: a
  /// JPEG within it is still not resized, a PNG beyond it is shrunk to it.
  @Test func decodesAJPEGReducedByLibjpegAlone() throws {
    let pixels = (0..<(1800 * 900)).map { UInt8(truncatingIfNeeded: ($0 % 1800) / 8 + ($0 / 1800) / 8) }
    let jpeg = try VisionImage(pixels: pixels, width: 1800, height: 900, channels: 1).encoded(jpeg: true)
    for (side, size, scale) in [
      (200, (225, 113), 0.125), (450, (450, 225), 0.25), (600, (900, 450), 0.5),
      (901, (1800, 900), 1.0),
    ] {
      let image = try VisionImage(decoding: jpeg, reducedToAtLeast: side)
      #expect((image.width, image.height) == size, "at least \(side)")
      #expect(abs(image.scale - scale) < 0.01, "at least \(side): \(image.scale)")
    }
    let png = try gradientPNG(width: 800, height: 400)
    let whole = try VisionImage(decoding: png, reducedToAtLeast: 100)
    #expect((whole.width, whole.height, whole.scale) == (800, 400, 1))
    let held = try VisionImage(decoding: png, reducedToAtLeast: 100, atMost: 200)
    #expect((held.width, held.height, held.scale) == (200, 100, 0.25))
    let quarter = try VisionImage(decoding: jpeg, reducedToAtLeast: 450, atMost: 900)
    #expect((quarter.width, quarter.height) == (450, 225))
  }

  /// A region found through a homography to the photo's pixels as taken is cut where it lies in
  /// the photo decoded at half its size, at the same output size.
  @Test func aDecodedSmallerPhotoIsStraightenedWhereTheRegionLies() throws {
    let pixels = (0..<(800 * 400)).map { UInt8(truncatingIfNeeded: ($0 % 800) / 4) }
    let jpeg = try VisionImage(pixels: pixels, width: 800, height: 400, channels: 1).encoded(jpeg: true, quality: 95)
    let (whole, half) = (try VisionImage(decoding: jpeg), try VisionImage(decoding: jpeg, reducedToAtLeast: 400))
    #expect(half.scale == 0.5)
    let identity: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
    let region = Rect(x: 200, y: 100, width: 200, height: 100)
    let (fromWhole, fromHalf) = (
      try whole.straightened(region, through: identity), try half.straightened(region, through: identity)
    )
    #expect((fromHalf.image.width, fromHalf.image.height) == (fromWhole.image.width, fromWhole.image.height))
    // The middle of the region is grey 75 (x = 300) in both.
    let middle = { (image: VisionImage) in Int(image.pixels[(image.height / 2 * image.width + image.width / 2) * 3]) }
    #expect(abs(middle(fromWhole.image) - 75) <= 3 && abs(middle(fromHalf.image) - 75) <= 3)
  }

  /// Sharpness is measured at the reader's 32 pixels high, relative to the crop's height: crisp
  /// bars measure sharp at 40 pixels high and at 400, soft waves blurred. Enlarged to 200 pixels
  /// first, as it once was, crisp small crops had measured blurred, and most reads were flagged
  /// `blur`.
  @Test func sharpnessIsMeasuredAtTheReadersHeight() throws {
    func stripes(height: Int, soft: Bool) throws -> VisionImage {
      let width = 4 * height
      let pixels = (0..<(width * height)).map { index -> UInt8 in
        let phase = Double(index % width) / Double(height)
        let level = soft ? 0.5 + 0.5 * sin(2 * Double.pi * phase) : (Int(phase * 2) % 2 == 0 ? 0.0 : 1.0)
        return UInt8(40 + 180 * level)
      }
      return try VisionImage(pixels: pixels, width: width, height: height, channels: 1)
    }
    #expect(try stripes(height: 40, soft: false).quality().sharpness > 40)
    #expect(try stripes(height: 400, soft: false).quality().sharpness > 40)
    #expect(try stripes(height: 40, soft: true).quality().sharpness < 40)
  }

  /// Glare is a highlight: a saturated blob brighter than the window's dark parts and wider than
  /// a stroke. Light digits on a dark face and dark digits on a bright face short of saturation are
  /// none. Over the host's threshold (`ReadPipeline.glaredOver`, 0.02) or well under it.
  @Test func glareIsAHighlightNotALightDigitOrFace() throws {
    let threshold = 0.02
    let (width, height) = (160, 40)
    func window(face: UInt8, strokes: UInt8, spot: Bool) throws -> VisionImage {
      let pixels = (0..<(width * height)).map { index -> UInt8 in
        let (x, y) = (index % width, index / width)
        let (dx, dy) = (Double(x - 60), Double(y - 20))
        if spot && dx * dx + dy * dy <= 14 * 14 { return 255 }
        // Digits' strokes: 4 pixels wide every 20, over the middle rows.
        return x % 20 < 4 && (6..<34).contains(y) ? strokes : face
      }
      return try VisionImage(pixels: pixels, width: width, height: height, channels: 1)
    }
    #expect(try window(face: 40, strokes: 255, spot: false).quality().glare < threshold)
    #expect(try window(face: 240, strokes: 20, spot: false).quality().glare < threshold)
    #expect(try window(face: 40, strokes: 255, spot: true).quality().glare > threshold)
    #expect(try window(face: 200, strokes: 20, spot: true).quality().glare > threshold)
  }

  /// A row's crop of a few dozen pixels is searched for rows as a photo is, not refused by
  /// OpenCV's least threshold block and closing.
  @Test func aSmallCropIsSearchedForRows() throws {
    for side in [8, 24, 40, 59] {
      let image = try VisionImage(
        pixels: [UInt8](repeating: 200, count: side * side), width: side, height: side, channels: 1)
      #expect(throws: Never.self) { try image.digitRows(limit: 4) }
      #expect(image.innerDigitRow() == nil)
    }
  }

  /// What is derived from an image is made once and kept with it, by the type derived; another
  /// image makes its own, and a failed derivation keeps nothing.
  @Test func aDerivationIsMadeOnceAndKeptWithItsImage() throws {
    final class Shrunk: Sendable {}
    struct Refused: Error {}
    let (image, other) = (
      try VisionImage(pixels: [UInt8](repeating: 7, count: 12), width: 2, height: 2, channels: 3),
      try VisionImage(pixels: [UInt8](repeating: 7, count: 12), width: 2, height: 2, channels: 3)
    )
    var made = 0
    let make = { () -> Shrunk in
      made += 1
      return Shrunk()
    }
    #expect(throws: Refused.self) { try image.derived(Shrunk.self) { () throws(Refused) -> Shrunk in throw Refused() } }
    let first = image.derived(Shrunk.self, make)
    #expect(image.derived(Shrunk.self, make) === first && made == 1)
    #expect(other.derived(Shrunk.self, make) !== first && made == 2)
  }

  /// A box scaled with its image holds what it held: edges rounded outwards.
  @Test func aBoxScalesWithItsImage() {
    #expect(Rect(x: 10, y: 20, width: 30, height: 40).scaled(by: 2.5) == Rect(x: 25, y: 50, width: 75, height: 100))
    #expect(Rect(x: 3, y: 3, width: 3, height: 3).scaled(by: 0.5) == Rect(x: 1, y: 1, width: 2, height: 2))
    let window = Window(box: Rect(x: 4, y: 4, width: 8, height: 8), value: "1", confidence: 1, digits: nil)
    #expect(window.scaled(by: 2).box == Rect(x: 8, y: 8, width: 16, height: 16) && window.scaled(by: 2).digits == nil)
  }

  /// A quarter turn clockwise puts the bottom-left pixel at the top left; minus one turns back.
  @Test func turnsByQuarterTurns() throws {
    let image = try VisionImage(pixels: [1, 2, 3, 4, 5, 6], width: 3, height: 2, channels: 1)
    let clockwise = try image.turned(quarterTurns: 1)
    #expect((clockwise.width, clockwise.height) == (2, 3))
    #expect(clockwise.pixels == [4, 1, 5, 2, 6, 3])
    #expect(try image.turned(quarterTurns: -1).pixels == [3, 6, 2, 5, 1, 4])
    #expect(try image.turned(quarterTurns: 2).pixels == [6, 5, 4, 3, 2, 1])
    #expect(try clockwise.turned(quarterTurns: -1).pixels == image.pixels)
    #expect(try image.turned(quarterTurns: 4).pixels == image.pixels)
  }

  /// A box turned with its image lands where the image's pixels inside it went.
  @Test func aBoxTurnsWithItsImage() throws {
    let (width, height) = (7, 4)
    let box = Rect(x: 1, y: 2, width: 3, height: 1)
    var pixels = [UInt8](repeating: 0, count: width * height)
    for x in 1..<4 { pixels[2 * width + x] = 255 }
    let image = try VisionImage(pixels: pixels, width: width, height: height, channels: 1)
    for turns in -1...3 {
      let turned = try image.turned(quarterTurns: turns)
      let lit = turned.pixels.indices.filter { turned.pixels[$0] == 255 }
      let xs = lit.map { $0 % turned.width }, ys = lit.map { $0 / turned.width }
      let found = Rect(
        x: Int32(xs.min()!), y: Int32(ys.min()!), width: Int32(xs.max()! - xs.min()! + 1),
        height: Int32(ys.max()! - ys.min()! + 1))
      #expect(box.turned(quarterTurns: turns, width: Int32(width), height: Int32(height)) == found, "\(turns)")
    }
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

  /// A display grown down past its last line: two lines, a small third, and round buttons below
  /// with more ink than any. The heaviest bands take the buttons; the topmost the display's
  /// lines (R210).
  @Test func keepsTheTopmostBandsWhenAsked() throws {
    let width = 100, height = 200
    var pixels = [UInt8](repeating: 255, count: width * height)
    func ink(rows: Range<Int>, columns: StrideTo<Int>) {
      for row in rows {
        for column in columns { pixels[row * width + column] = 0 }
      }
    }
    ink(rows: 10..<40, columns: stride(from: 20, to: 80, by: 2))
    ink(rows: 55..<85, columns: stride(from: 20, to: 80, by: 2))
    ink(rows: 100..<118, columns: stride(from: 40, to: 80, by: 2))
    ink(rows: 140..<190, columns: stride(from: 15, to: 85, by: 1))
    let display = try VisionImage(pixels: pixels, width: width, height: height, channels: 1)
    let heaviest = try display.textLines(expected: 3)
    #expect(heaviest.allSatisfy { !(95...125).contains($0.y + $0.height / 2) }, "\(heaviest)")
    let topmost = try display.textLines(expected: 3, keeping: .topmost)
    #expect(topmost.map { $0.y + $0.height / 2 } == [25, 70, 109], "\(topmost)")
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

/// The loops a digit's glyph closes, on glyphs drawn 40 x 64: a 6 with a straight stem (as DIN
/// lettering prints it), a 0 and a 7.
@Suite struct GlyphLoopTests {
  enum Glyph { case six, zero, seven }

  /// `glyph` drawn in `ink` on `ground`, `drop` pixels lower (a glyph cut by the top edge when
  /// negative).
  static func drawn(_ glyph: Glyph, ink: UInt8 = 230, ground: UInt8 = 30, drop: Int = 0) throws -> VisionImage {
    let (width, height) = (40, 64)
    var pixels = [UInt8](repeating: ground, count: width * height)
    func isInk(_ x: Double, _ y: Double) -> Bool {
      func nearSegment(_ a: (Double, Double), _ b: (Double, Double), within: Double) -> Bool {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1)
        let t = max(0, min(1, ((x - a.0) * dx + (y - a.1) * dy) / (dx * dx + dy * dy)))
        return hypot(x - a.0 - t * dx, y - a.1 - t * dy) <= within
      }
      switch glyph {
      case .six:
        let r = hypot(x - 20, y - 44)
        return (r >= 6 && r <= 12) || nearSegment((10, 40), (28, 6), within: 2.5)
      case .zero:
        let r = hypot((x - 20) / 12, (y - 32) / 26)
        return r >= 0.55 && r <= 1
      case .seven:
        return (y >= 6 && y <= 11 && x >= 8 && x <= 32) || nearSegment((31, 9), (15, 58), within: 2.5)
      }
    }
    for y in 0..<height {
      for x in 0..<width where isInk(Double(x), Double(y - drop)) {
        pixels[y * width + x] = ink
      }
    }
    return try VisionImage(pixels: pixels, width: width, height: height, channels: 1)
  }

  @Test func aSixsLoopSitsLowAndAZerosFillsIt() throws {
    for (ink, ground) in [(230, 30), (20, 210)] as [(UInt8, UInt8)] {
      let six = try Self.drawn(.six, ink: ink, ground: ground).glyphLoops(columns: 0..<40)
      #expect(six.holes == 1 && six.standsFree, "\(six)")
      #expect(six.top > 0.5 && six.top < 0.7 && six.bottom > 0.85 && six.bottom < 0.95, "\(six)")
      let zero = try Self.drawn(.zero, ink: ink, ground: ground).glyphLoops(columns: 0..<40)
      #expect(zero.holes == 1 && zero.top < 0.3 && zero.bottom > 0.7, "\(zero)")
      let seven = try Self.drawn(.seven, ink: ink, ground: ground).glyphLoops(columns: 0..<40)
      #expect(seven.holes == 0 && seven.top == 0 && seven.bottom == 0, "\(seven)")
    }
  }

  @Test func aGlyphCutByTheTopEdgeDoesNotStandFree() throws {
    let cut = try Self.drawn(.six, drop: -8).glyphLoops(columns: 0..<40)
    #expect(cut.holes == 1 && !cut.standsFree, "\(cut)")
  }

  @Test func columnsAreClampedToTheImage() throws {
    let six = try Self.drawn(.six)
    #expect(try six.glyphLoops(columns: -10..<60) == six.glyphLoops(columns: 0..<40))
    #expect(try six.glyphLoops(columns: 50..<60).holes == 0)
    #expect(try six.glyphLoops(columns: 0..<1).holes == 0)
  }
}

@Suite struct StraighteningScaleTests {
  /// A 4,000-pixel reference's region over a tenth as many of the photo's pixels is straightened
  /// at twice the photo's detail, a fifth of the reference's; one the photo holds at half or more
  /// of the reference's pixels, as it is.
  @Test func aRegionIsStraightenedNoFinerThanThePhotoHoldsIt() {
    let region = Rect(x: 1000, y: 300, width: 2000, height: 500)
    let tenth: [Double] = [0.1, 0, 5, 0, 0.1, 7, 0, 0, 1]
    #expect(abs(straighteningScale(corners(of: region, through: tenth), width: 2000, height: 500) - 0.2) < 1e-6)
    let half: [Double] = [0.5, 0, 5, 0, 0.5, 7, 0, 0, 1]
    #expect(
      straighteningScale(corners(of: Rect(x: 0, y: 0, width: 400, height: 100), through: half), width: 400, height: 100)
        == 1)
    // However sharp the photo, the shorter side gets no more than 256 pixels.
    #expect(abs(straighteningScale(corners(of: region, through: half), width: 2000, height: 500) - 256.0 / 500) < 1e-6)
    // Seen at a slant, the better-resolved side decides.
    let slanted: [Double] = [0.1, 0, 0, 0, 0.4, 0, 0, 0, 1]
    let small = Rect(x: 100, y: 30, width: 400, height: 100)
    #expect(abs(straighteningScale(corners(of: small, through: slanted), width: 400, height: 100) - 0.8) < 1e-6)
    // A region the homography all but collapses keeps 32 pixels across its shorter side.
    let collapsed: [Double] = [0.001, 0, 5, 0, 0.001, 7, 0, 0, 1]
    #expect(
      abs(straighteningScale(corners(of: region, through: collapsed), width: 2000, height: 500) - 32.0 / 500) < 1e-6)
  }
}
