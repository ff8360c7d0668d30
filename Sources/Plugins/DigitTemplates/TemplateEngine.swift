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
  /// real digits so that the confidence tracks the accuracy; see docs/recognizers.md).
  public static let temperature: Float = 0.025
  /// The networks' weight when their probabilities and the templates' are pooled (chosen with the
  /// read evaluation; docs/recognizers.md).
  public static let networkShare = 0.7
  /// The networks' weight for a meter whose confirmed readings taught the engine its own cells
  /// (``LearntCells``): they are matched beside the templates, which the surer networks
  /// outweighed at 0.7 (docs/recognizers.md, *Learning a meter's own digits*).
  public static let learntNetworkShare = 0.5
  /// Below this confidence in its reading (the product of its digits' probabilities), the engine
  /// reads the crop's other layout of cells too (see ``read(_:expected:learnt:)``): lower, it kept
  /// sure misreads the other layout reads right; always, it reads no more, twice as slowly.
  public static let secondLook = 0.99
  /// A layout of cells with a cell's centre further than this many pitches from the even row
  /// that fits the centres best is not a row of digits (a digit left out, another cut in two):
  /// the engine reads the crop's other layout instead, when there is one (see ``stray(_:)``).
  public static let strayLimit = 0.5
  /// Below this confidence in a digit, the engine reads its cell again inset (see
  /// ``read(_:expected:learnt:)``).
  public static let closerLook = 0.8

  public var templates: DigitTemplates
  /// The networks that score each cell beside the templates, their scores averaged (none: the
  /// templates alone).
  public var networks: [DigitNetwork]

  public init(templates: DigitTemplates, networks: [DigitNetwork] = []) {
    self.templates = templates
    self.networks = networks
  }

  /// The engine with the templates and networks that ship with the plugin.
  public static func bundled() throws -> TemplateEngine {
    TemplateEngine(templates: try DigitTemplates.bundled(), networks: try DigitNetwork.bundled())
  }

  /// The crop as cells are cut from it and templates are made from it: grey, dark on light,
  /// contrast stretched, ``lineHeight`` high; not binarised (that cost real wheels more than it
  /// gained displays).
  public static func prepare(_ image: VisionImage) throws(VisionError) -> VisionImage {
    try image.preparedForDigits(height: lineHeight, border: border)
  }

  /// The white border ``prepare(_:)`` adds.
  static let border = 4

  /// The digit cells of a crop (in the crop's pixels) and their features. Cells are found on the
  /// whole prepared crop, then each is cut from the original and prepared on its own, so that
  /// its polarity and contrast are its own: wheels of one counter differ (red last digits).
  public static func cells(of image: VisionImage, expected: Int) throws(VisionError) -> [Cell] {
    let crop = try PreparedCrop(image)
    return try crop.cut(try crop.prepared.digitCells(expected: expected))
  }

  /// A crop and its prepared copy, which cells are found on and cut from.
  struct PreparedCrop {
    let image: VisionImage
    let prepared: VisionImage
    /// Crop pixels per prepared pixel.
    let scale: Double

    init(_ image: VisionImage) throws(VisionError) {
      self.image = image
      prepared = try TemplateEngine.prepare(image)
      scale = Double(image.height) / Double(prepared.height - 2 * TemplateEngine.border)
    }

    /// The cells at `rects` (in the prepared copy's pixels).
    func cut(_ rects: [Rect]) throws(VisionError) -> [Cell] {
      try rects.map { (cell) throws(VisionError) -> Cell in
        let border = TemplateEngine.border
        let box = Rect(
          x: Int32((Double(cell.x - Int32(border)) * scale).rounded()),
          y: Int32((Double(cell.y - Int32(border)) * scale).rounded()),
          width: Int32(max(1, (Double(cell.width) * scale).rounded())),
          height: Int32(max(1, (Double(cell.height) * scale).rounded())))
        let single = try TemplateEngine.prepare(try image.cropped(box))
        let inner =
          try single.digitCells(expected: 1).first
          ?? Rect(x: 0, y: 0, width: Int32(single.width), height: Int32(single.height))
        return Cell(box: box, features: try single.cellFeatures(inner), pixels: try single.cellPixels(inner))
      }
    }
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

  /// Reads the crop. With `expected` > 0 the crop is split into that many cells. A digit's
  /// confidence is its probability; the reading's is the product of the chances that each digit
  /// reads right (``share(_:)``; were they independent, the chance that all do): it ranks
  /// readings by how far to trust them better than the weakest digit's.
  ///
  /// When the engine is unsure of its reading (under ``secondLook``) it reads the crop's other
  /// layout of cells too and keeps the one whose digits it is surer of, all together. Then each
  /// digit it is unsure of (under ``closerLook``) is read again from its cell inset by a sixteenth
  /// of its width on each side and a twelfth of its height, and the two readings' probabilities
  /// are averaged: the edges of a cell cut from a photo of wheels hold the frame and the
  /// neighbouring wheels, which the inset leaves out, and a digit the two views agree on is the
  /// surer (docs/recognizers.md, *A closer look*).
  ///
  /// - Parameter learnt: the meter's own cells, from its confirmed readings; they are matched
  ///   beside the templates, so a meter whose digits the templates miss is read by its own.
  public func read(_ image: VisionImage, expected: Int, learnt: LearntCells = LearntCells()) throws(VisionError)
    -> EngineReading
  {
    let crop = try PreparedCrop(image)
    let (first, second) = Self.layouts(try crop.prepared.digitCellLayouts(expected: expected))
    // The meter's own cells, laid out for the search once for all the cells judged below.
    let own = try OwnCells(learnt, dimensions: templates.components)
    var rects = first
    var digits = try judge(crop.cut(first), own: own)
    if Self.confidence(of: digits) < Self.secondLook, let second {
      let judged = try judge(crop.cut(second), own: own)
      if Self.belief(in: judged) > Self.belief(in: digits) {
        (rects, digits) = (second, judged)
      }
    }
    let unsure = digits.indices.filter { digits[$0].probabilities.max()! < Self.closerLook }
    if !unsure.isEmpty {
      let closer = try judge(crop.cut(unsure.map { Self.inset(rects[$0]) }), own: own)
      for (index, view) in zip(unsure, closer) {
        digits[index].probabilities = zip(digits[index].probabilities, view.probabilities).map { ($0 + $1) / 2 }
      }
    }
    let symbols = digits.map(Self.symbol)
    return EngineReading(
      text: symbols.map(\.text).joined(), confidence: digits.map { Self.share($0.probabilities) }.reduce(1, *),
      symbols: symbols)
  }

  /// The layout of cells to read first, and the one to read when unsure of it: the cell
  /// finder's layout and its other one, unless the finder's strays from an even row (more than
  /// ``strayLimit``): then the other alone.
  public static func layouts(_ found: (cells: [Rect], alternative: [Rect]?)) -> (first: [Rect], second: [Rect]?) {
    guard let other = found.alternative, other != found.cells else { return (found.cells, nil) }
    return stray(found.cells) > strayLimit ? (other, nil) : (found.cells, other)
  }

  /// How far the cells stray from an even row: the largest distance of a cell's centre from the
  /// line that fits the centres best against their order (least squares), in pitches (the
  /// line's slope); 0 for fewer than three cells. A row of digits strays little (rendered
  /// seven-segment displays, narrow 1s and margins included, up to 0.3); the cells of a real
  /// counter found one digit short and another cut in two, 0.58 and 0.81 (18877143 read
  /// 18871413 at 0.997, its even layout read right).
  public static func stray(_ cells: [Rect]) -> Double {
    guard cells.count >= 3 else { return 0 }
    let centres = cells.map { Double($0.x) + Double($0.width) / 2 }
    let count = Double(cells.count)
    let meanOrder = (count - 1) / 2, meanCentre = centres.reduce(0, +) / count
    let spread = centres.indices.reduce(0.0) { $0 + (Double($1) - meanOrder) * (Double($1) - meanOrder) }
    let pitch = centres.indices.reduce(0.0) { $0 + (Double($1) - meanOrder) * (centres[$1] - meanCentre) } / spread
    guard pitch > 0 else { return .infinity }
    return centres.indices.map { abs(centres[$0] - meanCentre - pitch * (Double($0) - meanOrder)) }.max()! / pitch
  }

  /// A cell (in the prepared crop's pixels) inset by a sixteenth of its width on each side and a
  /// twelfth of its height at top and bottom.
  static func inset(_ cell: Rect) -> Rect {
    let dx = max(1, cell.width / 16), dy = max(1, cell.height / 12)
    return Rect(
      x: cell.x + dx, y: cell.y + dy, width: max(1, cell.width - 2 * dx), height: max(1, cell.height - 2 * dy))
  }

  /// What the engine makes of one cell: the probability of each digit, and a wheel caught
  /// between two digits when the network sees one.
  struct Judgement {
    var probabilities: [Double]
    var roll: WheelRoll?
    var box: Rect
  }

  private static func confidence(of digits: [Judgement]) -> Double {
    digits.reduce(1) { $0 * $1.probabilities.max()! }
  }

  private static func belief(in digits: [Judgement]) -> Double {
    digits.reduce(0) { $0 + log(max($1.probabilities.max()!, 1e-9)) }
  }

  /// A meter's own cells (``LearntCells``) with their search index; `nil` for a meter that has none.
  private struct OwnCells {
    let labels: [UInt16]
    let index: TemplateIndex

    init?(_ learnt: LearntCells, dimensions: Int) throws(VisionError) {
      guard !learnt.labels.isEmpty else { return nil }
      labels = learnt.labels
      index = try TemplateIndex(templates: learnt.features, dimensions: dimensions)
    }
  }

  /// Judges the cells, one judgement each.
  private func judge(_ cells: [Cell], own: OwnCells?) throws(VisionError) -> [Judgement] {
    guard !cells.isEmpty else { return [] }
    let queries = cells.flatMap { templates.project($0.features) }
    var nearest = try templates.index.nearest(queries: queries, k: Self.neighbours).map {
      $0.map { (label: templates.labels[$0.index], similarity: $0.similarity) }
    }
    if let own {
      let fromOwn = try own.index.nearest(queries: queries, k: Self.neighbours)
      for cell in nearest.indices {
        nearest[cell] += fromOwn[cell].map { (label: own.labels[$0.index], similarity: $0.similarity) }
      }
    }
    let probabilities = networks.isEmpty ? nil : try Self.probabilities(of: cells.map(\.pixels), by: networks)
    return zip(cells, nearest).enumerated().map { index, cell in
      judgement(
        cell.1, network: probabilities?[index], box: cell.0.box,
        networkShare: own == nil ? Self.networkShare : Self.learntNetworkShare)
    }
  }

  /// The cells of a crop whose true value is known (a confirmed reading), labelled with its
  /// digits, each whole and inset as ``read(_:expected:learnt:)`` looks closer at it (learnt whole
  /// only, a meter's unsure digits stayed wrong: the inset view, matched with no cell of the
  /// meter's own, outvoted the whole one); `nil` when the cells found are not one per digit of
  /// `value`.
  public func learn(_ image: VisionImage, value: String) throws(VisionError) -> LearntCells? {
    let digits = value.compactMap(\.wholeNumberValue)
    guard !digits.isEmpty else { return nil }
    let crop = try PreparedCrop(image)
    // The layout `read` reads first: not one that strays from an even row.
    let rects = Self.layouts(try crop.prepared.digitCellLayouts(expected: digits.count)).first
    guard rects.count == digits.count else { return nil }
    // Each cell as it is read: whole, and inset for a closer look.
    let cells = try crop.cut(rects) + crop.cut(rects.map(Self.inset))
    return LearntCells(
      labels: (digits + digits).map { UInt16($0 * 10) }, features: cells.flatMap { templates.project($0.features) })
  }

  /// The networks' probabilities for each cell image, read as it is and with its polarity
  /// inverted by each network, pooled geometrically (the softmax of all the readings' mean
  /// scores). A cell's polarity comes from its border (background positive), which a wheel
  /// window's frame or a neighbouring wheel's edge can fool; the networks learnt digits of both
  /// polarities (Tools/train-digit-network.py inverts half its examples), and the two readings
  /// together name more real digits than either (held-out training photos: see
  /// docs/recognizers.md). Networks trained alike from different seeds err on different cells,
  /// so their mean names more, and is less sure where they differ.
  static func probabilities(of cells: [[Float]], by networks: [DigitNetwork]) throws(VisionError) -> [[Double]] {
    let pixels = cells.flatMap { $0 }
    let both = pixels + pixels.map { -$0 }
    let classes = networks[0].shape.classes
    var sums = [Float](repeating: 0, count: 2 * cells.count * classes)
    for network in networks {
      for (index, score) in try network.scores(both).enumerated() { sums[index] += score }
    }
    let inverted = cells.count * classes, readings = Double(2 * networks.count)
    return cells.indices.map { cell in
      softmax((cell * classes..<(cell + 1) * classes).map { Double(sums[$0] + sums[inverted + $0]) / readings })
    }
  }

  /// A cell's digit. The templates: each digit scores its best neighbour's similarity, and a
  /// softmax turns the scores into probabilities (a template of a wheel between two digits, label
  /// x.5 and up, counts for the next digit, the usual reading convention). The network's
  /// probabilities (``probabilities(of:by:)``) and the templates' are pooled geometrically, the
  /// network's with weight `networkShare` (``networkShare``, or ``learntNetworkShare`` for a
  /// meter with cells of its own).
  private func judgement(
    _ neighbours: [(label: UInt16, similarity: Float)], network: [Double]?, box: Rect, networkShare: Double
  )
    -> Judgement
  {
    var best = [Float](repeating: -1, count: 10)
    for neighbour in neighbours {
      let label = Int(neighbour.label)
      let digit = (label / 10 + (label % 10 >= 5 ? 1 : 0)) % 10
      best[digit] = max(best[digit], neighbour.similarity)
    }
    var weights = softmax(best.map { $0 < 0 ? -.infinity : Double($0) / Double(Self.temperature) })
    var roll: WheelRoll?
    if let network, network.count == 10 {
      roll = Self.roll(network)
      weights = zip(weights, network).map { fromTemplates, fromNetwork in
        exp(
          (1 - networkShare) * log(max(fromTemplates, 1e-9)) + networkShare * log(max(fromNetwork, 1e-9)))
      }
    }
    let total = weights.reduce(0, +)
    return Judgement(probabilities: weights.map { $0 / total }, roll: roll, box: box)
  }

  /// The digit judged likeliest and the next two, the runners-up, each with its probability.
  static func symbol(_ judgement: Judgement) -> Symbol {
    let probabilities = judgement.probabilities
    let ranked = (0..<10).sorted { probabilities[$0] > probabilities[$1] }
    let digit = ranked[0]
    return Symbol(
      text: String(digit), confidence: probabilities[digit], box: judgement.box,
      alternatives: ranked.dropFirst().prefix(2).filter { probabilities[$0] > 0 }.map {
        Alternative(text: String($0), confidence: probabilities[$0])
      },
      // Only a roll that agrees with the digit read.
      roll: judgement.roll.flatMap { $0.fits(String(digit)) ? $0 : nil })
  }

  /// The chance that the likeliest digit reads right: its probability and its likelier
  /// neighbour's (the digit above or below). The network learnt a wheel caught between two
  /// digits as a share of each (4.3: 0.7 of a 4, 0.3 of a 5), and such a wheel is rightly read
  /// as either, so the share of the neighbour is no doubt about the digit (its probability alone
  /// put right readings of rolling wheels among the least sure; docs/recognizers.md). The vote
  /// counts the neighbour so too (``ReadVote``).
  static func share(_ probabilities: [Double]) -> Double {
    let digit = probabilities.indices.max { probabilities[$0] < probabilities[$1] }!
    return min(1, probabilities[digit] + max(probabilities[(digit + 1) % 10], probabilities[(digit + 9) % 10]))
  }

  /// A wheel caught between two digits, from the network's probabilities: it learnt a wheel
  /// labelled x.t as 1 - t of x and t of x + 1. The neighbouring pair with the most probability,
  /// when it holds at least 0.8 and the upper digit's share of it is between 0.15 and 0.85.
  static func roll(_ probabilities: [Double]) -> WheelRoll? {
    let pairs: [Double] = (0..<10).map { probabilities[$0] + probabilities[($0 + 1) % 10] }
    let lower = pairs.indices.max { pairs[$0] < pairs[$1] }!
    let pair = pairs[lower]
    let fraction = probabilities[(lower + 1) % 10] / pair
    guard pair >= 0.8, (0.15...0.85).contains(fraction) else { return nil }
    return WheelRoll(from: String(lower), fraction: fraction)
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
