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
  /// The network's weight when its probabilities and the templates' are pooled (measured with
  /// the read evaluation: 0.5 and 0.8 read fewer real strips exactly; see docs/recognizers.md).
  public static let networkShare = 0.7

  public var templates: DigitTemplates
  /// The network that scores each cell beside the templates, when there is one.
  public var network: DigitNetwork?

  public init(templates: DigitTemplates, network: DigitNetwork? = nil) {
    self.templates = templates
    self.network = network
  }

  /// The engine with the templates and network that ship with the plugin.
  public static func bundled() throws -> TemplateEngine {
    TemplateEngine(templates: try DigitTemplates.bundled(), network: try DigitNetwork.bundled())
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
  public static func cells(of image: VisionImage, expected: Int) throws(VisionError) -> [Cell] {
    try layouts(of: image, expected: expected)[0]
  }

  /// The cells as ``cells(of:expected:)`` finds them and, when there is one, another layout
  /// (``VisionImage/alternativeDigitCells(expected:)``): the reader keeps the one it is surer of.
  static func layouts(of image: VisionImage, expected: Int) throws(VisionError) -> [[Cell]] {
    let prepared = try prepare(image)
    let scale = Double(image.height) / Double(prepared.height - 2 * border)
    func cut(_ cell: Rect) throws(VisionError) -> Cell {
      let box = Rect(
        x: Int32((Double(cell.x - Int32(border)) * scale).rounded()),
        y: Int32((Double(cell.y - Int32(border)) * scale).rounded()),
        width: Int32(max(1, (Double(cell.width) * scale).rounded())),
        height: Int32(max(1, (Double(cell.height) * scale).rounded())))
      let single = try prepare(try image.cropped(box))
      let inner =
        try single.digitCells(expected: 1).first
        ?? Rect(x: 0, y: 0, width: Int32(single.width), height: Int32(single.height))
      return Cell(box: box, features: try single.cellFeatures(inner), pixels: try single.cellPixels(inner))
    }
    let found = try prepared.digitCells(expected: expected)
    var layouts = [try found.map { (cell) throws(VisionError) in try cut(cell) }]
    if let other = try prepared.alternativeDigitCells(expected: expected), other != found {
      layouts.append(try other.map { (cell) throws(VisionError) in try cut(cell) })
    }
    return layouts
  }

  /// A digit cell of a crop.
  public struct Cell: Sendable {
    /// Where it is, in the crop's pixels.
    public var box: Rect
    /// What the templates are matched on (``CellFeatures``).
    public var features: [Float]
    /// What the network reads (``VisionImage/cellPixels(_:)``).
    public var pixels: [Float]
  }

  /// Reads the crop. With `expected` > 0 the crop is split into that many cells.
  ///
  /// - Parameter learnt: the meter's own cells, from its confirmed readings; they are matched
  ///   beside the templates, so a meter whose digits the templates miss is read by its own.
  public func read(_ image: VisionImage, expected: Int, learnt: LearntCells = LearntCells()) throws(VisionError)
    -> EngineReading
  {
    let layouts = try Self.layouts(of: image, expected: expected)
    // All layouts' cells at once: the templates are streamed through once for all of them.
    var symbols = try read(layouts.flatMap { $0 }, learnt: learnt)[...]
    var best: (reading: EngineReading, belief: Double)?
    for layout in layouts {
      let own = symbols.prefix(layout.count)
      symbols = symbols.dropFirst(layout.count)
      // Of two layouts, the one whose digits the engine is surer of, all together.
      let belief = own.reduce(0) { $0 + log(max($1.confidence, 1e-9)) }
      if best == nil || belief > best!.belief {
        let reading = EngineReading(
          text: own.map(\.text).joined(), confidence: own.map(\.confidence).min() ?? 0, symbols: Array(own))
        best = (reading, belief)
      }
    }
    return best?.reading ?? EngineReading(text: "", confidence: 0)
  }

  /// Each cell's symbol.
  private func read(_ cells: [Cell], learnt: LearntCells) throws(VisionError) -> [Symbol] {
    guard !cells.isEmpty else { return [] }
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
    let classes = network?.shape.classes ?? 0
    let scores = try network?.scores(cells.flatMap(\.pixels))
    return zip(cells, nearest).enumerated().map { index, cell in
      symbol(cell.1, scores: scores.map { Array($0[(index * classes)..<((index + 1) * classes)]) }, box: cell.0.box)
    }
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

  /// A cell's digit. The templates: each digit scores its best neighbour's similarity, and a
  /// softmax turns the scores into probabilities (a template of a wheel between two digits, label
  /// x.5 and up, counts for the next digit, the usual reading convention). The network's scores
  /// are a softmax too; the two are pooled geometrically, the network's with weight
  /// ``networkShare``. The pooled probabilities give the confidence and the runners-up.
  private func symbol(_ neighbours: [(label: UInt16, similarity: Float)], scores: [Float]?, box: Rect) -> Symbol {
    var best = [Float](repeating: -1, count: 10)
    for neighbour in neighbours {
      let label = Int(neighbour.label)
      let digit = (label / 10 + (label % 10 >= 5 ? 1 : 0)) % 10
      best[digit] = max(best[digit], neighbour.similarity)
    }
    var weights = softmax(best.map { $0 < 0 ? -.infinity : Double($0) / Double(Self.temperature) })
    if let scores, scores.count == 10 {
      let network = softmax(scores.map(Double.init))
      weights = zip(weights, network).map { fromTemplates, fromNetwork in
        exp(
          (1 - Self.networkShare) * log(max(fromTemplates, 1e-9)) + Self.networkShare * log(max(fromNetwork, 1e-9)))
      }
    }
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

/// Probabilities from scores: exp(score - max), normalised.
private func softmax(_ scores: [Double]) -> [Double] {
  let top = scores.max() ?? 0
  let weights = scores.map { exp($0 - top) }
  let total = weights.reduce(0, +)
  return weights.map { $0 / total }
}
