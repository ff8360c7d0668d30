import Foundation
import PhotometerProtocol
import PhotometerVision

/// The template OCR: finds the digit cells of a crop and names each by its nearest templates.
public struct TemplateEngine: Sendable {
  /// Prepared crops are this many pixels high.
  public static let lineHeight = 48
  /// Neighbours consulted per cell.
  public static let neighbours = 12
  /// Softmax temperature turning per-digit similarities into probabilities (measured on held-out
  /// real digits so that the confidence tracks the accuracy; see docs/reading.md).
  public static let temperature: Float = 0.025

  public var templates: DigitTemplates

  public init(templates: DigitTemplates) {
    self.templates = templates
  }

  /// The crop as cells are cut from it and templates are made from it: grey, dark on light,
  /// contrast stretched, ``lineHeight`` high. (Binarising drops a seven-segment display's ghost
  /// segments, but cost real wheels more than it gained displays: 80.9% against 85.3% per digit.)
  public static func prepare(_ image: VisionImage) throws(VisionError) -> VisionImage {
    try image.preparedForDigits(height: lineHeight, border: border)
  }

  /// The white border ``prepare(_:)`` adds.
  static let border = 4

  /// The digit cells of a crop (in the crop's pixels) and their features. Cells are found on the
  /// whole prepared crop, then each is cut from the original and prepared on its own, so that
  /// its polarity and contrast are its own: wheels of one counter differ (red last digits).
  public static func cells(of image: VisionImage, expected: Int) throws(VisionError) -> [(box: Rect, features: [Float])]
  {
    let prepared = try prepare(image)
    let scale = Double(image.height) / Double(prepared.height - 2 * border)
    return try prepared.digitCells(expected: expected).map {
      (cell) throws(VisionError) -> (box: Rect, features: [Float]) in
      let box = Rect(
        x: Int32((Double(cell.x - Int32(border)) * scale).rounded()),
        y: Int32((Double(cell.y - Int32(border)) * scale).rounded()),
        width: Int32(max(1, (Double(cell.width) * scale).rounded())),
        height: Int32(max(1, (Double(cell.height) * scale).rounded())))
      let single = try prepare(try image.cropped(box))
      let inner =
        try single.digitCells(expected: 1).first
        ?? Rect(x: 0, y: 0, width: Int32(single.width), height: Int32(single.height))
      return (box, try single.cellFeatures(inner))
    }
  }

  /// Reads the crop. With `expected` > 0 the crop is split into that many cells.
  ///
  /// - Parameter learnt: the meter's own cells, from its confirmed readings; they are matched
  ///   beside the templates, so a meter whose digits the templates miss is read by its own.
  public func read(_ image: VisionImage, expected: Int, learnt: LearntCells = LearntCells()) throws(VisionError)
    -> EngineReading
  {
    let cells = try Self.cells(of: image, expected: expected)
    guard !cells.isEmpty else {
      return EngineReading(text: "", confidence: 0)
    }
    let queries = cells.flatMap { templates.project($0.features) }
    var nearest = try CellFeatures.nearest(
      templates: templates.features, queries: queries, dimensions: templates.components, k: Self.neighbours
    ).map { $0.map { (label: templates.labels[$0.index], similarity: $0.similarity) } }
    if !learnt.labels.isEmpty {
      let own = try CellFeatures.nearest(
        templates: learnt.features, queries: queries, dimensions: templates.components, k: Self.neighbours)
      for cell in nearest.indices {
        nearest[cell] += own[cell].map { (label: learnt.labels[$0.index], similarity: $0.similarity) }
      }
    }
    let symbols = zip(cells, nearest).map { cell, neighbours in symbol(neighbours, box: cell.box) }
    return EngineReading(
      text: symbols.map(\.text).joined(), confidence: symbols.map(\.confidence).min() ?? 0, symbols: symbols)
  }

  /// The cells of a crop whose true value is known (a confirmed reading), labelled with its
  /// digits; `nil` when the cells found are not one per digit of `value`.
  public func learn(_ image: VisionImage, value: String) throws(VisionError) -> LearntCells? {
    let digits = value.compactMap(\.wholeNumberValue)
    guard !digits.isEmpty else { return nil }
    let cells = try Self.cells(of: image, expected: digits.count)
    guard cells.count == digits.count else { return nil }
    return LearntCells(
      labels: digits.map { UInt16($0 * 10) }, features: cells.flatMap { templates.project($0.features) })
  }

  /// A cell's digit: each digit scores its best neighbour's similarity; a softmax over the
  /// scores gives the confidence and the runners-up. A wheel between two digits (label x.5 and
  /// up) counts for the next digit, the usual reading convention.
  private func symbol(_ neighbours: [(label: UInt16, similarity: Float)], box: Rect) -> Symbol {
    var best = [Float](repeating: -1, count: 10)
    for neighbour in neighbours {
      let label = Int(neighbour.label)
      let digit = (label / 10 + (label % 10 >= 5 ? 1 : 0)) % 10
      best[digit] = max(best[digit], neighbour.similarity)
    }
    let top = best.max() ?? 0
    let weights = best.map { $0 < 0 ? 0 : exp(Double(($0 - top) / Self.temperature)) }
    let total = weights.reduce(0, +)
    let ranked = (0..<10).sorted { weights[$0] > weights[$1] }
    return Symbol(
      text: String(ranked[0]), confidence: weights[ranked[0]] / total, box: box,
      alternatives: ranked.dropFirst().prefix(2).filter { weights[$0] > 0 }.map {
        Alternative(text: String($0), confidence: weights[$0] / total)
      })
  }
}

/// Digit cells a meter's confirmed readings taught the engine, on the templates' axes: labels
/// as in ``DigitTemplates/labels``, features `components` floats per cell, unit length.
public struct LearntCells: Sendable {
  public var labels: [UInt16]
  public var features: [Float]

  public init(labels: [UInt16] = [], features: [Float] = []) {
    self.labels = labels
    self.features = features
  }

  public static func + (lhs: LearntCells, rhs: LearntCells) -> LearntCells {
    LearntCells(labels: lhs.labels + rhs.labels, features: lhs.features + rhs.features)
  }
}
