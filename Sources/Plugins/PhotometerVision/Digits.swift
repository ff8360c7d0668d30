import CPhotometerVision
import PhotometerProtocol

extension VisionImage {
  /// Grey, dark digits on light, contrast stretched, `height` pixels high with a white `border`;
  /// binarised by Otsu's threshold when `binarize`.
  public func preparedForDigits(height: Int, border: Int, binarize: Bool = false) throws(VisionError)
    -> VisionImage
  {
    var result: OpaquePointer?
    try check(pm_digits_prepare(pointer, Int32(height), Int32(border), binarize ? 1 : 0, &result))
    return VisionImage(result!)
  }

  /// The digit window inside the crop's dark frame (a wheel counter's housing, a display's
  /// bezel): the whole crop less its outer rows and columns that are mostly dark once digits are
  /// dark on light, at most a quarter of each side.
  public func digitWindow() throws(VisionError) -> Rect {
    var rect = [Int32](repeating: 0, count: 4)
    try check(pm_digits_window(pointer, &rect))
    return Rect(x: rect[0], y: rect[1], width: rect[2], height: rect[3])
  }

  /// The loops a digit's glyph closes (``glyphLoops(columns:)``).
  public struct GlyphLoops: Hashable, Sendable {
    /// How many holes the glyph's largest component of ink encloses.
    public var holes: Int
    /// Where the holes start and end, as fractions of the glyph's height from its top (0 when
    /// there are none).
    public var top: Double
    public var bottom: Double
    /// The glyph touches neither the top nor the bottom edge of the image.
    public var standsFree: Bool

    public init(holes: Int, top: Double, bottom: Double, standsFree: Bool) {
      self.holes = holes
      self.top = top
      self.bottom = bottom
      self.standsFree = standsFree
    }
  }

  /// The loops of the glyph in `columns` (full height, clamped to the image): the largest
  /// component of ink, the minority side of Otsu's threshold, and the holes it encloses.
  public func glyphLoops(columns: Range<Int>) throws(VisionError) -> GlyphLoops {
    var result = pm_glyph_loops_result()
    let (left, right) = (Int32(clamping: columns.lowerBound), Int32(clamping: columns.upperBound))
    try check(pm_glyph_loops(pointer, left, right, &result))
    return GlyphLoops(
      holes: Int(result.holes), top: result.top, bottom: result.bottom, standsFree: result.stands_free != 0)
  }

  /// The `expected` lines of text, top to bottom (e.g. a blood-pressure monitor's systolic,
  /// diastolic and pulse), full width; equal bands when fewer lines stand out. When more stand
  /// out, `choice` says which are kept.
  public func textLines(expected: Int, keeping choice: LineChoice = .heaviest) throws(VisionError) -> [Rect] {
    var rects = [Int32](repeating: 0, count: 4 * max(expected, 0))
    try check(pm_text_lines(pointer, Int32(expected), choice == .topmost ? 1 : 0, &rects))
    return Self.rects(rects, count: expected)
  }

  /// Which of more bands of ink than expected ``textLines(expected:keeping:)`` keeps.
  public enum LineChoice: Sendable {
    /// The bands with the most ink: a display's lines outweigh a rule or a label beside them.
    case heaviest
    /// The first bands from the top: for a crop that starts at a display's first line and may run
    /// on past its last, where round buttons below outweigh a small pulse line (R210).
    case topmost
  }

  /// A row of digits found in a whole photo (``digitRows(limit:)``).
  public struct DigitRow: Sendable {
    /// Upright, around the row with a margin.
    public var box: Rect
    /// The row turned by its slant, 4 corners clockwise from the top left: what to straighten.
    public var corners: [(x: Float, y: Float)]
    /// More digits, taller and more alike: higher.
    public var score: Double
    /// How many digits the row seems to hold.
    public var digits: Int

    public init(box: Rect, corners: [(x: Float, y: Float)], score: Double, digits: Int) {
      self.box = box
      self.corners = corners
      self.score = score
      self.digits = digits
    }

    /// The row around digits whose 4 corners (clockwise from the top left in reading order) are
    /// `digits`, with the margins `pm_digit_rows` gives its rows: a third of the digits' height
    /// above and below, `sideMargin` digit heights at either end; as many digits as fit its width
    /// at 0.65 of their height apiece, as `pm_digit_rows` counts a wide member. Its `box` lies in
    /// a photo of `width` x `height` pixels, as `pm_digit_rows`' boxes do (a window is stored and
    /// cut from it); the corners may reach past the photo's edge.
    public init(
      digitCorners digits: [(x: Float, y: Float)], score: Double, width photoWidth: Int, height photoHeight: Int
    ) {
      precondition(digits.count == 4, "a row has 4 corners")
      let height = max(distance(digits[0], digits[3]), 1)
      let width = distance(digits[0], digits[1])
      let side = Float(Self.sideMargin) * height, above = height / 3
      let corners = Self.grown(digits, along: side, across: above)
      // The box around the digits and a third of their height, clipped to the photo (at least a
      // pixel of it).
      let xs = digits.map(\.x), ys = digits.map(\.y)
      let left = min(max(0, Int(xs.min()! - above)), photoWidth - 1)
      let top = min(max(0, Int(ys.min()! - above)), photoHeight - 1)
      let right = min(photoWidth, max(left + 1, Int((xs.max()! + above).rounded(.up))))
      let bottom = min(photoHeight, max(top + 1, Int((ys.max()! + above).rounded(.up))))
      self.init(
        box: Rect(x: Int32(left), y: Int32(top), width: Int32(right - left), height: Int32(bottom - top)),
        corners: corners, score: score, digits: max(1, Int((width / (0.65 * height)).rounded())))
    }

    /// The digits' box inside a row's upright `window` (``box``, or a window a read gave back):
    /// the window less its margin of a third of the digits' height on every side, a fifth of the
    /// window's height. A row's window is cut with that margin; the digits are what was found.
    public static func digits(in window: Rect) -> Rect {
      let margin = window.height / 5
      return Rect(
        x: window.x + margin, y: window.y + margin, width: max(1, window.width - 2 * margin),
        height: max(1, window.height - 2 * margin))
    }

    /// The digits' 4 corners (clockwise from the top left): ``corners`` less their margins, a
    /// third of the digits' height above and below and ``sideMargin`` digit heights at either
    /// end; what ``init(digitCorners:score:width:height:)`` grows them from.
    public var digitCorners: [(x: Float, y: Float)] {
      let height = Float(digitHeight)
      return Self.grown(corners, along: -Float(Self.sideMargin) * height, across: -height / 3)
    }

    /// The digits' upright box: around ``digitCorners``, not clipped to the photo. For an upright
    /// row that is ``digits(in:)`` of its box; a turned row's box is taller than its digits, so a
    /// fifth of the box's height would cut into them.
    public var digitBox: Rect {
      let points = digitCorners
      let xs = points.map(\.x), ys = points.map(\.y)
      let left = Int32(xs.min()!.rounded()), top = Int32(ys.min()!.rounded())
      return Rect(
        x: left, y: top, width: max(1, Int32(xs.max()!.rounded()) - left),
        height: max(1, Int32(ys.max()!.rounded()) - top))
    }

    /// ``digitBox`` clipped to ``box``, and so to the photo: what a read gives back as a found
    /// row's digits (`Window.digits`). The box itself when the two do not meet.
    public var digitBoxInPhoto: Rect {
      let digits = digitBox
      let left = max(digits.x, box.x), top = max(digits.y, box.y)
      let right = min(digits.x + digits.width, box.x + box.width)
      let bottom = min(digits.y + digits.height, box.y + box.height)
      guard right > left, bottom > top else { return box }
      return Rect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// The 4 corners of `quad` (clockwise from the top left) moved outward by `along` along its
    /// top edge's direction and by `across` at right angles to it; negative values move inward.
    /// A row's corners are its digits' grown by its margins, and its digits the row's shrunk.
    static func grown(_ quad: [(x: Float, y: Float)], along: Float, across: Float) -> [(x: Float, y: Float)] {
      let width = max(distance(quad[0], quad[1]), 1)
      let unit = (x: (quad[1].x - quad[0].x) / width, y: (quad[1].y - quad[0].y) / width)
      let down = (x: -unit.y, y: unit.x)
      let steps: [(a: Float, d: Float)] = [(-along, -across), (along, -across), (along, across), (-along, across)]
      return zip(quad, steps).map { corner, step in
        (x: corner.x + step.a * unit.x + step.d * down.x, y: corner.y + step.a * unit.y + step.d * down.y)
      }
    }

    /// The digits' height: the row's, less its margins above and below.
    public var digitHeight: Double {
      Double(distance(corners[0], corners[3])) * 3 / 5
    }

    /// The row's corners grown downward to `times` its height, its top edge kept: the lines of a
    /// display below a row found (a blood-pressure monitor's under its systolic), turned as the
    /// row is.
    public func grownDown(to times: Float) -> [(x: Float, y: Float)] {
      func along(_ from: (x: Float, y: Float), _ to: (x: Float, y: Float)) -> (x: Float, y: Float) {
        (from.x + (to.x - from.x) * times, from.y + (to.y - from.y) * times)
      }
      return [corners[0], corners[1], along(corners[1], corners[2]), along(corners[0], corners[3])]
    }

    /// Margin past a row's first and last digits, in digit heights (`sideMargin` in
    /// vision_digit_rows.cpp): a digit's width and a gap.
    public static let sideMargin = 0.8
  }

  /// Candidate rows of digits in a whole photo, best first, at most `limit` (see `pm_digit_rows`).
  public func digitRows(limit: Int = 8) throws(VisionError) -> [DigitRow] {
    let size = max(limit, 0)
    var rects = [Int32](repeating: 0, count: 4 * size)
    var corners = [Float](repeating: 0, count: 8 * size)
    var scores = [Float](repeating: 0, count: size)
    var digits = [Int32](repeating: 0, count: size)
    var count: Int32 = 0
    try check(pm_digit_rows(pointer, Int32(limit), &rects, &corners, &scores, &digits, &count))
    return Self.rects(rects, count: Int(count)).enumerated().map { index, box in
      DigitRow(
        box: box, corners: (0..<4).map { (corners[8 * index + 2 * $0], corners[8 * index + 2 * $0 + 1]) },
        score: Double(scores[index]), digits: Int(digits[index]))
    }
  }

  /// The row straightened by its slant, as wide and tall as its turned rectangle.
  public func straightened(_ row: DigitRow) throws(VisionError) -> VisionImage {
    try straightened(row.corners)
  }

  /// A row as it is read: ``straightened(_:)``, no larger than puts its digits
  /// ``rowDigitsMost`` pixels high, with the print of its side margins that is no digit of the
  /// row painted out with the ground around it (`pm_row_clear_side_print`: a clock's small
  /// digits above and beside a display's value, read as a leading digit otherwise).
  public func rowCrop(_ row: DigitRow) throws(VisionError) -> VisionImage {
    let scale = min(1, Self.rowDigitsMost / max(row.digitHeight, 1))
    let straight = try straightened(row.corners, scale: scale)
    var result: OpaquePointer?
    let margin = Int32(DigitRow.sideMargin * row.digitHeight * scale)
    try check(pm_row_clear_side_print(straight.pointer, margin, &result))
    return VisionImage(result!)
  }

  /// The row of two digits or more the component finder sees inside this image, a row's crop as
  /// read, when it is under ``innerRowShare`` of the crop's height: the digits themselves where
  /// the row was cut with its display's frame (a thermometer's digits at under half the reader's
  /// height, its point a pixel or two). Nil otherwise.
  public func innerDigitRow() -> DigitRow? {
    guard let inner = (try? digitRows(limit: 4))?.first(where: { $0.digits >= 2 }),
      Double(inner.box.height) < Self.innerRowShare * Double(height)
    else { return nil }
    return inner
  }

  /// `row`'s digits as the connected-component finder measures them around it: the digits grown
  /// by 1.5 times their height above and below and half of it at either end, straightened and
  /// searched (``digitRows(limit:)``); the best row there of two digits or more that holds the
  /// middle of `row`'s digits, covers half their width or more and is 0.8 to ``measuredTallest``
  /// times as tall, in this image's pixels. Nil when there is none. The row finder's network
  /// measures a row by a map at a quarter of 320 pixels, where a small display's seven-segment
  /// digits, 30 pixels high in the photo, come out as their lower part (docs/recognizers.md,
  /// R200).
  public func measuredRow(around row: DigitRow) -> DigitRow? {
    let height = Float(row.digitHeight)
    let digits = row.digitCorners
    let area = DigitRow.grown(digits, along: height / 2, across: 1.5 * height)
    // Searched with the digits no more than ``measuredDigitsMost`` pixels high: a cropped
    // window's rows, hundreds of pixels high, took the component finder tens of milliseconds.
    let scale = Float(min(1, Self.measuredDigitsMost / max(row.digitHeight, 1)))
    guard height >= 4, let crop = try? straightened(area, scale: Double(scale)),
      let found = try? crop.digitRows(limit: 4)
    else { return nil }
    let width = distance(digits[0], digits[1])
    // `row`'s digits in the crop: from half a height to the right, 1.5 heights down.
    let (ownLeft, ownRight, ownMiddle) = (scale * height / 2, scale * (height / 2 + width), scale * 2 * height)
    guard
      let measured = found.first(where: { candidate in
        let box = candidate.digitBox
        let overlap = min(Float(box.x + box.width), ownRight) - max(Float(box.x), ownLeft)
        return candidate.digits >= 2 && Float(box.y) <= ownMiddle && Float(box.y + box.height) >= ownMiddle
          && overlap >= scale * width / 2 && Float(box.height) >= scale * 0.8 * height
          && Float(box.height) <= scale * Float(Self.measuredTallest) * height
      })
    else { return nil }
    // From the crop's pixels back to this image's: the crop is the turned rectangle `area`.
    let (across, down) = (Float(crop.width), Float(crop.height))
    func inPhoto(_ point: (x: Float, y: Float)) -> (x: Float, y: Float) {
      let (u, v) = (point.x / across, point.y / down)
      return (
        area[0].x + u * (area[1].x - area[0].x) + v * (area[3].x - area[0].x),
        area[0].y + u * (area[1].y - area[0].y) + v * (area[3].y - area[0].y)
      )
    }
    return DigitRow(
      digitCorners: measured.digitCorners.map(inPhoto), score: row.score, width: self.width, height: self.height)
  }

  /// The most pixels high a found row's digits are measured at (``measuredRow(around:)``).
  public static let measuredDigitsMost = 48.0

  /// How many times as tall as a found row a row measured around it may be: a thermometer's
  /// digits found as their lower part measured about 1.6 times as tall; taller ones were a
  /// monitor's round buttons below its lines, read as a pulse of "00" (R204).
  public static let measuredTallest = 1.6

  /// How much of a row's crop the digits found inside it may take and still be worth cutting
  /// again.
  public static let innerRowShare = 0.8

  /// The most pixels a row's digits are cut at: three times the reader's input height. A phone
  /// photo's rows, cut whole, cost the host 11 ms more to cut and send than the 800-pixel photos'.
  public static let rowDigitsMost = 96.0

  /// `count` rectangles of 4 ints each (x, y, width, height).
  private static func rects(_ ints: [Int32], count: Int) -> [Rect] {
    (0..<count).map { index in
      Rect(x: ints[4 * index], y: ints[4 * index + 1], width: ints[4 * index + 2], height: ints[4 * index + 3])
    }
  }
}

/// How far apart two points are, in pixels.
func distance(_ a: (x: Float, y: Float), _ b: (x: Float, y: Float)) -> Float {
  ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
}
