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

  /// The `expected` lines of text, top to bottom (e.g. a blood-pressure monitor's systolic,
  /// diastolic and pulse), full width; equal bands when fewer lines stand out.
  public func textLines(expected: Int) throws(VisionError) -> [Rect] {
    var rects = [Int32](repeating: 0, count: 4 * max(expected, 0))
    try check(pm_text_lines(pointer, Int32(expected), &rects))
    return Self.rects(rects, count: expected)
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
    func distance(_ a: (x: Float, y: Float), _ b: (x: Float, y: Float)) -> Int {
      max(1, Int(((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot().rounded()))
    }
    return try straightened(
      row.corners, width: distance(row.corners[0], row.corners[1]), height: distance(row.corners[1], row.corners[2]))
  }

  /// The digit cells of a prepared image, left to right: one per group of connected components on
  /// the text line, or `expected` even cells over the window when the groups are not that many
  /// (or the digits found on local ink, when they leave margins the even cells would cut out of
  /// step; see `pm_digit_cells`).
  public func digitCells(expected: Int) throws(VisionError) -> [Rect] {
    try findDigitCells(expected: expected, alternative: false).cells
  }

  /// The digit cells as ``digitCells(expected:)`` finds them and, from the same analysis, another
  /// layout of `expected` cells (see `pm_digit_cells`): the window split evenly when components
  /// were used, cells at the digits' own pitch when the even split was used for a display with
  /// margins; nil when there is none.
  public func digitCellLayouts(expected: Int) throws(VisionError) -> (cells: [Rect], alternative: [Rect]?) {
    try findDigitCells(expected: expected, alternative: true)
  }

  private func findDigitCells(expected: Int, alternative wanted: Bool) throws(VisionError)
    -> (cells: [Rect], alternative: [Rect]?)
  {
    var capacity = max(expected, 32)
    var alternative = [Int32](repeating: 0, count: wanted ? 4 * max(expected, 0) : 0)
    var alternativeCount: Int32 = 0
    while true {
      var rects = [Int32](repeating: 0, count: 4 * capacity)
      var count: Int32 = 0
      try check(
        alternative.withUnsafeMutableBufferPointer { other in
          pm_digit_cells(
            pointer, Int32(expected), &rects, Int32(capacity), &count, wanted ? other.baseAddress : nil,
            &alternativeCount)
        })
      if Int(count) <= capacity {
        return (
          Self.rects(rects, count: Int(count)),
          alternativeCount > 0 ? Self.rects(alternative, count: Int(alternativeCount)) : nil
        )
      }
      capacity = Int(count)
    }
  }

  /// `count` rectangles of 4 ints each (x, y, width, height).
  private static func rects(_ ints: [Int32], count: Int) -> [Rect] {
    (0..<count).map { index in
      Rect(x: ints[4 * index], y: ints[4 * index + 1], width: ints[4 * index + 2], height: ints[4 * index + 3])
    }
  }

  /// One cell as the digit network reads it: ``DigitNetwork/cellWidth`` x
  /// ``DigitNetwork/cellHeight`` floats, zero mean and unit deviation, background positive.
  public func cellPixels(_ cell: Rect) throws(VisionError) -> [Float] {
    var status = PM_OK
    let count = DigitNetwork.cellWidth * DigitNetwork.cellHeight
    let pixels = [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
      status = pm_cell_pixels(pointer, cell.x, cell.y, cell.width, cell.height, buffer.baseAddress)
      initialized = count
    }
    try check(status)
    return pixels
  }

  /// The feature vector of one cell (unit length, ``CellFeatures/dimensions`` floats).
  public func cellFeatures(_ cell: Rect) throws(VisionError) -> [Float] {
    var status = PM_OK
    let features = [Float](unsafeUninitializedCapacity: CellFeatures.dimensions) { buffer, count in
      status = pm_cell_features(pointer, cell.x, cell.y, cell.width, cell.height, buffer.baseAddress)
      count = CellFeatures.dimensions
    }
    try check(status)
    return features
  }
}

/// Cell features and their principal axes (the nearest-template search is ``TemplateIndex``).
public enum CellFeatures {
  /// The length of a cell's feature vector.
  public static let dimensions = Int(pm_cell_feature_size())

  /// The mean and the first `components` principal axes (unit rows) of `rows` (rows of
  /// ``dimensions`` floats).
  public static func principalComponents(of rows: [Float], components: Int) throws(VisionError)
    -> (mean: [Float], axes: [Float])
  {
    var mean = [Float](repeating: 0, count: dimensions)
    var axes = [Float](repeating: 0, count: components * dimensions)
    try check(
      pm_principal_components(rows, Int32(rows.count / dimensions), Int32(dimensions), Int32(components), &mean, &axes))
    return (mean, axes)
  }
}

/// Templates laid out for the nearest-template search: in blocks of eight, dimension by
/// dimension, so that a query meets eight templates at once.
public final class TemplateIndex: @unchecked Sendable {
  // Safe to share: searching does not change the index.
  private let pointer: OpaquePointer
  public let count: Int
  public let dimensions: Int

  /// `templates`: rows of `dimensions` floats.
  public init(templates: [Float], dimensions: Int) throws(VisionError) {
    var result: OpaquePointer?
    try check(pm_template_index_create(templates, Int32(templates.count / dimensions), Int32(dimensions), &result))
    pointer = result!
    count = templates.count / dimensions
    self.dimensions = dimensions
  }

  deinit {
    pm_template_index_free(pointer)
  }

  /// For each query (rows of `queries`), the `k` most similar templates: their indices and dot
  /// products, best first.
  public func nearest(queries: [Float], k: Int) throws(VisionError) -> [[(index: Int, similarity: Float)]] {
    let queryCount = queries.count / dimensions
    guard queryCount > 0 else { return [] }
    let k = min(k, count)
    var indices = [Int32](repeating: 0, count: queryCount * k)
    var similarities = [Float](repeating: 0, count: queryCount * k)
    try check(pm_template_index_nearest(pointer, queries, Int32(queryCount), Int32(k), &indices, &similarities))
    return (0..<queryCount).map { query in
      (0..<k).map { rank in (Int(indices[query * k + rank]), similarities[query * k + rank]) }
    }
  }
}

extension Rect {
  /// Intersection over union with `other`: 1 for the same box, 0 for boxes apart; how well a row
  /// found matches the true one.
  public func overlap(with other: Rect) -> Double {
    let width = max(0, min(x + self.width, other.x + other.width) - max(x, other.x))
    let height = max(0, min(y + self.height, other.y + other.height) - max(y, other.y))
    let shared = Double(width) * Double(height)
    let union = Double(self.width) * Double(self.height) + Double(other.width) * Double(other.height) - shared
    return union > 0 ? shared / union : 0
  }
}
