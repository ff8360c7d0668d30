import Foundation
import PhotometerProtocol
import PhotometerVision
import TestSupport
import Testing

/// Rows of digits found in whole photos of devices (Tools/make-device-photos.py, the style the
/// finder was designed on); photometer-benchmark-find measures the style it never saw.
@Suite struct DigitRowTests {
  @Test func findsTheDisplaysDigitsAmongTheBestRows() async throws {
    let folder = try await Rendered.devicePhotos(count: 12, seed: 7)
    let labels = try Rendered.rows(folder.appendingPathComponent("labels.csv"))
    let found = try await onOwnThread {
      try labels.filter { label in
        let photo = try VisionImage(decoding: [UInt8](try Data(contentsOf: folder.appendingPathComponent(label[0]))))
        let truth = label[3].split(separator: " ").compactMap { Int32($0) }
        return try photo.digitRows(limit: 3).contains {
          $0.box.overlap(with: Rect(x: truth[0], y: truth[1], width: truth[2], height: truth[3])) >= 0.5
        }
      }.count
    }
    #expect(found >= 10, "\(found) of \(labels.count)")
  }

  /// A display's digit closed together with the unlit segments beside it is about as wide as
  /// tall and thinly inked, the shape of a button's outline: it joins the digits on either side
  /// into one row, but outlines alone make none.
  @Test func aSquareThinlyInkedDigitJoinsARowButMakesNone() throws {
    let outline = { (x: Int, pixels: inout [UInt8]) in
      Self.fill(&pixels, x: x, y: 60, width: 40, height: 3)
      Self.fill(&pixels, x: x, y: 97, width: 40, height: 3)
      Self.fill(&pixels, x: x, y: 60, width: 3, height: 40)
      Self.fill(&pixels, x: x + 37, y: 60, width: 3, height: 40)
    }
    var row = [UInt8](repeating: 200, count: Self.width * Self.height)
    Self.three(&row, x: 40, y: 60)
    outline(80, &row)
    Self.three(&row, x: 134, y: 60)
    let found = try VisionImage(pixels: row, width: Self.width, height: Self.height, channels: 1).digitRows()
    #expect(found.first.map { $0.box.x <= 40 && $0.box.x + $0.box.width >= 160 } == true, "\(found.map(\.box))")

    var buttons = [UInt8](repeating: 200, count: Self.width * Self.height)
    for x in [40, 94, 148] { outline(x, &buttons) }
    #expect(try VisionImage(pixels: buttons, width: Self.width, height: Self.height, channels: 1).digitRows().isEmpty)
  }

  /// A 1 is a solid bar: it is a digit of its row, not a filled patch (a small display's 118).
  @Test func aSolidBarIsADigitOfItsRow() throws {
    var pixels = [UInt8](repeating: 200, count: Self.width * Self.height)
    for x in [60, 90] { Self.fill(&pixels, x: x, y: 100, width: 6, height: 40) }
    for x in [110, 150] { Self.three(&pixels, x: x, y: 100) }
    let found = try VisionImage(pixels: pixels, width: Self.width, height: Self.height, channels: 1).digitRows()
    let row = try #require(found.first)
    #expect(row.digitBox.x <= 62 && row.digits == 4, "\(row.digitBox), \(row.digits) digits")
  }

  /// A leading digit joined to print above it (a clock's digits over a thermometer's) is too tall
  /// to join the row, but the window to straighten reaches past the row's first digit far enough
  /// to hold it.
  @Test func theWindowHoldsADigitTheRowMissed() throws {
    var pixels = [UInt8](repeating: 200, count: Self.width * Self.height)
    for x in [60, 100, 140, 180] {
      // A 7, 26 x 40, strokes of 5.
      Self.fill(&pixels, x: x, y: 100, width: 26, height: 5)
      Self.fill(&pixels, x: x + 21, y: 100, width: 5, height: 40)
    }
    // The first 7's stem runs up into a line of print: one component, twice the digits' height.
    Self.fill(&pixels, x: 81, y: 60, width: 5, height: 40)
    Self.fill(&pixels, x: 40, y: 60, width: 50, height: 5)
    let found = try VisionImage(pixels: pixels, width: Self.width, height: Self.height, channels: 1).digitRows()
    let row = try #require(found.first)
    #expect(row.box.x > 70, "the tall 7 is no member of \(row.box)")
    let left = row.corners.map(\.x).min() ?? .infinity
    #expect(left <= 81, "the window starts at \(left), right of the missed 7's stem at 81")
  }

  /// A display's lines stacked close (a blood-pressure monitor's systolic over its diastolic):
  /// the larger closing joins the digits above and below into tall two-line components, a row of
  /// its own; each line is still a row, not a repeat of the taller one it overlaps.
  @Test func aDisplaysCloseLinesAreRowsBesideTheTallRowTheyMake() throws {
    // 333 over 33, the lower line under the upper's last two digits, 8 pixels apart.
    let photo = try Self.largeThrees(at: [(200, 100), (240, 100), (280, 100), (240, 168), (280, 168)])
    let found = try photo.digitRows()
    let boxes = found.map(\.digitBox)
    let upper = boxes.contains { $0.x <= 205 && $0.x + $0.width >= 305 && $0.y >= 90 && $0.y + $0.height <= 170 }
    let lower = boxes.contains { $0.x >= 230 && $0.x <= 245 && $0.y >= 160 && $0.y + $0.height <= 235 }
    #expect(upper && lower, "\(boxes)")
  }

  /// Lines so close that even the smaller closing joins a digit to the one below it: each such
  /// two-line component, with a digit of either line level with its halves, is cut in two, and
  /// both lines are rows.
  @Test func digitsJoinedAcrossTwoLinesAreCutIntoTheirLines() throws {
    // 333 over 333 shifted a digit right, 2 pixels apart: the middle two of each line touch.
    let photo = try Self.largeThrees(at: [(200, 100), (240, 100), (280, 100), (240, 162), (280, 162), (320, 162)])
    let found = try photo.digitRows()
    let boxes = found.map(\.digitBox)
    let upper = boxes.contains { $0.x <= 205 && $0.x + $0.width >= 305 && $0.y >= 90 && $0.y + $0.height <= 170 }
    let lower = boxes.contains { $0.x >= 230 && $0.x + $0.width >= 345 && $0.y >= 150 && $0.y + $0.height <= 232 }
    #expect(upper && lower, "\(boxes)")
  }

  /// A row as it is read: small print in a side margin above the digits' middle with nothing
  /// under it (a clock's digits) is painted with the ground; a decimal point low in a margin and
  /// a missed digit's top bar with its stroke below stay.
  @Test func sidePrintAboveARowIsPaintedOut() throws {
    // A 300 x 100 row: digits 60 high in the band from 20 to 80, margins of 0.8 x 60 = 48 at
    // either end.
    let (width, height) = (300, 100)
    var pixels = [UInt8](repeating: 200, count: width * height)
    func fill(x: Int, y: Int, width w: Int, height h: Int) {
      for row in y..<(y + h) {
        for column in x..<(x + w) { pixels[row * width + column] = 40 }
      }
    }
    for x in [60, 110, 160, 210] {
      fill(x: x, y: 20, width: 30, height: 6)
      fill(x: x + 24, y: 20, width: 6, height: 60)
    }
    fill(x: 10, y: 8, width: 6, height: 26)  // a clock's 1 above and left of the value
    fill(x: 22, y: 8, width: 14, height: 4)
    fill(x: 262, y: 72, width: 6, height: 6)  // a decimal point
    fill(x: 254, y: 20, width: 30, height: 6)  // a missed digit's top bar, its stroke apart below
    fill(x: 278, y: 52, width: 6, height: 28)
    let photo = try VisionImage(pixels: pixels, width: width, height: height, channels: 1)
    let row = VisionImage.DigitRow(
      digitCorners: [(48, 20), (252, 20), (252, 80), (48, 80)], score: 1, width: width, height: height)
    let crop = try photo.rowCrop(row)
    #expect(crop.width == width && crop.height == height)
    let read = crop.pixels
    let at = { (x: Int, y: Int) in Int(read[(y * crop.width + x) * crop.channels]) }
    #expect(at(12, 20) > 150 && at(28, 9) > 150, "the clock stays: \(at(12, 20)), \(at(28, 9))")
    #expect(at(264, 75) < 100, "the decimal point is gone: \(at(264, 75))")
    #expect(at(260, 22) < 100, "the top bar is gone: \(at(260, 22))")
    #expect(at(75, 22) < 100 && at(136, 50) < 100, "a digit is gone")
  }

  /// A row the row finder's network found as its digits' lower part (a small display's, measured
  /// on a coarse map) is measured again by the components around it: the whole digits, top to
  /// foot (R200); over blank ground there is nothing to measure, and digits more than
  /// ``VisionImage/measuredTallest`` times as tall as the row found are not its own (R204).
  @Test func aRowFoundAsItsDigitsLowerPartIsMeasuredWhole() throws {
    var pixels = [UInt8](repeating: 200, count: Self.width * Self.height)
    for x in [60, 100, 140, 180] { Self.three(&pixels, x: x, y: 100) }
    let photo = try VisionImage(pixels: pixels, width: Self.width, height: Self.height, channels: 1)
    let lowerPart = VisionImage.DigitRow(
      digitCorners: [(60, 114), (206, 114), (206, 140), (60, 140)], score: 1, width: Self.width, height: Self.height)
    let measured = try #require(photo.measuredRow(around: lowerPart))
    let digits = measured.digitBox
    #expect(abs(Int(digits.y) - 100) <= 3 && abs(Int(digits.y + digits.height) - 140) <= 3, "\(digits)")
    #expect(abs(Int(digits.x) - 60) <= 3 && abs(Int(digits.x + digits.width) - 206) <= 3, "\(digits)")
    let blank = try VisionImage(
      pixels: [UInt8](repeating: 200, count: Self.width * Self.height), width: Self.width, height: Self.height,
      channels: 1)
    #expect(blank.measuredRow(around: lowerPart) == nil)
    // Digits twice as tall as the row found among them are something else (R204).
    let lowerHalf = VisionImage.DigitRow(
      digitCorners: [(60, 120), (206, 120), (206, 140), (60, 140)], score: 1, width: Self.width, height: Self.height)
    #expect(photo.measuredRow(around: lowerHalf) == nil)
  }

  static let width = 320
  static let height = 240

  /// Dark ink on the light grey of a `width` x `height` photo.
  static func fill(_ pixels: inout [UInt8], x: Int, y: Int, width: Int, height: Int) {
    for row in y..<(y + height) {
      for column in x..<(x + width) { pixels[row * Self.width + column] = 40 }
    }
  }

  /// A 3 (three bars and the right side, 26 x 40, strokes of 5) with its top left at `x`, `y`.
  static func three(_ pixels: inout [UInt8], x: Int, y: Int) {
    for bar in [y, y + 18, y + 35] { fill(&pixels, x: x, y: bar, width: 26, height: 5) }
    fill(&pixels, x: x + 21, y: y, width: 5, height: 40)
  }

  /// A 640 x 480 photo of 3s, 30 x 60 with strokes of 5, each with its top left at one of
  /// `corners`: a display's lines at the size the larger closing joins across.
  static func largeThrees(at corners: [(x: Int, y: Int)]) throws -> VisionImage {
    let (width, height) = (640, 480)
    var pixels = [UInt8](repeating: 200, count: width * height)
    for (x, y) in corners {
      for bar in [y, y + 27, y + 55] {
        for row in bar..<(bar + 5) { for column in x..<(x + 30) { pixels[row * width + column] = 40 } }
      }
      for row in y..<(y + 60) { for column in (x + 25)..<(x + 30) { pixels[row * width + column] = 40 } }
    }
    return try VisionImage(pixels: pixels, width: width, height: height, channels: 1)
  }

  @Test func theDigitsInARowsWindowAreItsDigitsWithoutTheMargin() {
    // Three digits 60 pixels tall: the window is 20 pixels wider on every side, which a found
    // row is judged without (with it, a perfect three-digit row overlaps its digits by IoU 0.46).
    let row = VisionImage.DigitRow(
      digitCorners: [(100, 50), (220, 50), (220, 110), (100, 110)], score: 1, width: 640, height: 480)
    #expect(row.box == Rect(x: 80, y: 30, width: 160, height: 100))
    #expect(VisionImage.DigitRow.digits(in: row.box) == Rect(x: 100, y: 50, width: 120, height: 60))
    #expect(row.box.overlap(with: Rect(x: 100, y: 50, width: 120, height: 60)) < 0.5)
    #expect(row.digitBox == Rect(x: 100, y: 50, width: 120, height: 60))
  }

  @Test func aTurnedRowsDigitsAreTheBoxAroundThemNotAFifthOfItsWindow() {
    // The same digits turned by 20 degrees about (160, 80): their upright box is 133 x 97, and
    // the row's window 20 pixels wider on every side. A fifth of the window's height (27
    // pixels) would cut 14 pixels off the digits' height and width.
    let (cosine, sine) = (Float(cos(20 * Double.pi / 180)), Float(sin(20 * Double.pi / 180)))
    let turned = [(100, 50), (220, 50), (220, 110), (100, 110)].map { (x: Float, y: Float) in
      (x: 160 + cosine * (x - 160) - sine * (y - 80), y: 80 + sine * (x - 160) + cosine * (y - 80))
    }
    let row = VisionImage.DigitRow(digitCorners: turned, score: 1, width: 640, height: 480)
    let xs = turned.map(\.x), ys = turned.map(\.y)
    let truth = Rect(
      x: Int32(xs.min()!.rounded()), y: Int32(ys.min()!.rounded()),
      width: Int32((xs.max()! - xs.min()!).rounded()), height: Int32((ys.max()! - ys.min()!).rounded()))
    let found = row.digitBox
    #expect(abs(found.x - truth.x) <= 1 && abs(found.y - truth.y) <= 1)
    #expect(abs(found.width - truth.width) <= 1 && abs(found.height - truth.height) <= 1)
    #expect(found.overlap(with: truth) > 0.95)
    let fifth = VisionImage.DigitRow.digits(in: row.box)
    #expect(fifth.height < truth.height - 10 && fifth.width < truth.width - 10)
  }

  /// A turned row grown down to three times its height keeps its top edge and slant: the lines
  /// of the display below it, turned as it is.
  @Test func aRowGrownDownKeepsItsTopEdgeAndSlant() {
    let (cosine, sine) = (Float(cos(15 * Double.pi / 180)), Float(sin(15 * Double.pi / 180)))
    let turned = [(100, 50), (220, 50), (220, 110), (100, 110)].map { (x: Float, y: Float) in
      (x: 160 + cosine * (x - 160) - sine * (y - 80), y: 80 + sine * (x - 160) + cosine * (y - 80))
    }
    let row = VisionImage.DigitRow(digitCorners: turned, score: 1, width: 640, height: 480)
    let grown = row.grownDown(to: 3)
    func length(_ a: (x: Float, y: Float), _ b: (x: Float, y: Float)) -> Float {
      ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
    }
    #expect(grown[0] == row.corners[0] && grown[1] == row.corners[1])
    #expect(abs(length(grown[1], grown[2]) - 3 * length(row.corners[1], row.corners[2])) < 0.01)
    // The sides go on in the row's own direction, across its slant.
    let side = (x: grown[3].x - grown[0].x, y: grown[3].y - grown[0].y)
    let own = (x: row.corners[3].x - row.corners[0].x, y: row.corners[3].y - row.corners[0].y)
    #expect(abs(side.x * own.y - side.y * own.x) < 0.01)
  }

  /// A quadrilateral is straightened to its top and right sides' lengths, rounded (not cut off),
  /// whatever its turn; three corners are refused.
  @Test func aQuadrilateralIsStraightenedToItsSidesLengths() throws {
    let photo = try VisionImage(pixels: [UInt8](repeating: 90, count: 320 * 240), width: 320, height: 240, channels: 1)
    // Turned by the 3-4-5 angle: the top side 40.6 long, the right side 12.4 at right angles.
    let (along, across): (Float, Float) = (40.6, 12.4)
    let (cosine, sine): (Float, Float) = (0.6, 0.8)
    let topLeft = (x: Float(100), y: Float(50))
    let topRight = (x: topLeft.x + along * cosine, y: topLeft.y + along * sine)
    let quad = [
      topLeft, topRight, (x: topRight.x - across * sine, y: topRight.y + across * cosine),
      (x: topLeft.x - across * sine, y: topLeft.y + across * cosine),
    ]
    let straight = try photo.straightened(quad)
    #expect(straight.width == 41 && straight.height == 12)
    #expect(throws: VisionError.self) { try photo.straightened(Array(quad.prefix(3))) }
  }

  @Test func aRowAtThePhotosEdgeGivesBackItsDigitsWithinThePhoto() {
    // Digits from x -10 (cut by the left edge) to 110: the box starts at 0, the digits' box at
    // -10, and what a read gives back at 0.
    let row = VisionImage.DigitRow(
      digitCorners: [(-10, 50), (110, 50), (110, 110), (-10, 110)], score: 1, width: 640, height: 480)
    #expect(row.box == Rect(x: 0, y: 30, width: 130, height: 100))
    #expect(row.digitBox == Rect(x: -10, y: 50, width: 120, height: 60))
    #expect(row.digitBoxInPhoto == Rect(x: 0, y: 50, width: 110, height: 60))
    let inside = VisionImage.DigitRow(
      digitCorners: [(100, 50), (220, 50), (220, 110), (100, 110)], score: 1, width: 640, height: 480)
    #expect(inside.digitBoxInPhoto == inside.digitBox)
  }

  @Test func aBlankPhotoHasNoRows() throws {
    let blank = try VisionImage(pixels: [UInt8](repeating: 180, count: 320 * 240), width: 320, height: 240, channels: 1)
    #expect(try blank.digitRows().isEmpty)
  }
}
