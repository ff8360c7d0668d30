import CPhotometerVision

/// A rectangle in a prepared image.
public struct CellBox: Hashable, Sendable {
  public var x: Int
  public var y: Int
  public var width: Int
  public var height: Int

  public init(x: Int, y: Int, width: Int, height: Int) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }
}

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

  /// The digit cells of a prepared image, left to right: `expected` even cells over the ink when
  /// the count is known, else one per group of connected components.
  public func digitCells(expected: Int) throws(VisionError) -> [CellBox] {
    var capacity = max(expected, 32)
    while true {
      var rects = [Int32](repeating: 0, count: 4 * capacity)
      var count: Int32 = 0
      try check(pm_digit_cells(pointer, Int32(expected), &rects, Int32(capacity), &count))
      if Int(count) <= capacity {
        return (0..<Int(count)).map { (index: Int) -> CellBox in
          let box = rects[(4 * index)..<(4 * index + 4)].map(Int.init)
          return CellBox(x: box[0], y: box[1], width: box[2], height: box[3])
        }
      }
      capacity = Int(count)
    }
  }

  /// The feature vector of one cell (unit length, ``CellFeatures/dimensions`` floats).
  public func cellFeatures(_ cell: CellBox) throws(VisionError) -> [Float] {
    var status = PM_OK
    let features = [Float](unsafeUninitializedCapacity: CellFeatures.dimensions) { buffer, count in
      status = pm_cell_features(
        pointer, Int32(cell.x), Int32(cell.y), Int32(cell.width), Int32(cell.height), buffer.baseAddress)
      count = CellFeatures.dimensions
    }
    try check(status)
    return features
  }
}

/// Nearest-template search over cell features.
public enum CellFeatures {
  /// The length of a cell's feature vector.
  public static let dimensions = Int(pm_cell_feature_size())

  /// For each query (rows of `queries`), the `k` most similar templates (rows of `templates`,
  /// `dimensions` floats each): their indices and dot products (cosine similarities for unit
  /// rows), best first.
  public static func nearest(templates: [Float], queries: [Float], dimensions: Int, k: Int) throws(VisionError)
    -> [[(index: Int, similarity: Float)]]
  {
    let templateCount = templates.count / dimensions
    let queryCount = queries.count / dimensions
    guard queryCount > 0 else { return [] }
    let k = min(k, templateCount)
    var indices = [Int32](repeating: 0, count: queryCount * k)
    var similarities = [Float](repeating: 0, count: queryCount * k)
    try check(
      pm_nearest_templates(
        templates, Int32(templateCount), queries, Int32(queryCount), Int32(dimensions), Int32(k), &indices,
        &similarities))
    return (0..<queryCount).map { query in
      (0..<k).map { rank in (Int(indices[query * k + rank]), similarities[query * k + rank]) }
    }
  }

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
