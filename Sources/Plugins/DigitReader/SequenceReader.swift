import Foundation
import PhotometerProtocol
import PhotometerVision

/// Reads a whole digit window at once: the network scores every column of the window, CTC
/// decoding turns the columns into characters (digits and a decimal point), so the reader finds
/// the digits and their count itself. A digit count, when the meter has one, constrains the
/// decoding to paths with that many digits.
public struct SequenceReader: Sendable {
  public let network: ReaderNetwork
  /// A second opinion on each digit the decoding places, read from the digit's cell, pooled with
  /// the network's by `cellShare` (the classifier's weight in a geometric pool; 0 or no classifier:
  /// the network's alone).
  public let cells: CellClassifier?
  public let cellShare: Double
  /// The pool's softmax temperature. A geometric pool whose weights sum to one is no surer than
  /// its members, though two opinions that agree are surer evidence than either; this makes the
  /// pooled probability the digit's chance of being right.
  public let poolTemperature: Double
  /// The weight of a meter's ``DigitMemory`` in a digit's pool (0: memories change nothing).
  public let memoryShare: Double
  /// A digit the network is at least this sure of is not read again (1.01: every digit is).
  public let cellGate: Double
  /// The spans the classifier reads each digit from; their opinions are pooled geometrically.
  public let cellViews: [CellView]
  /// Another training of the classifier (one training's draw errs on its own digits), asked
  /// about a cell only when `cells` is less sure of its digit than `escalation` or reads another
  /// digit than the network; the two trainings' opinions are then pooled geometrically.
  public let secondCells: CellClassifier?
  public let escalation: Double
  /// Whether a digit decided as 0 or 7, less surely than ``loopCheckBelow`` and not on a wheel
  /// between 9 and 0, whose glyph closes a 6's loop (``closesSixLoop(_:)``) is read 6, the two
  /// digits' probabilities swapped.
  public let loopCheck: Bool
  let decoder: CTCDecoder

  /// The classifier's weight in the pool, chosen on meterdigits' development set-ups.
  public static let defaultCellShare = 0.7
  /// The pool's temperature, fitted on meterdigits' development set-ups.
  public static let defaultPoolTemperature = 0.5
  /// The gate, chosen on meterdigits' development set-ups (docs/recognizers.md, *The gate
  /// again*): the network is sure past it of nearly every digit it reads right, so the
  /// classifier is asked about the doubtful ones only.
  public static let defaultCellGate = 0.999
  /// A wheel whose position is more than this fraction past a digit and less than this short of
  /// the next is caught mid-roll (meterdigits labels x.2 to x.8 so; x.1 reads x, x.9 reads x + 1).
  public static let settledMargin = 0.15
  /// Below this sureness of the first classifier the second is asked (1.01: always).
  public static let defaultEscalation = 0.99
  /// A glyph whose one loop starts at least this far down it (a fraction of its height) is a 6's:
  /// a 0's loop starts near its top, and a 7 closes none. On meterdigits the 6s' loops start at
  /// 0.4 to 0.6 and under 1% of the 0s' and 7s' at 0.4 or lower down (docs/recognizers.md, R84).
  public static let sixLoopTop = 0.4
  /// A 6's loop is a bowl, at least this much of the glyph high (meterdigits' 6s: 0.26 and more);
  /// a smaller hole is a gap glare left in a stroke.
  public static let sixLoopHeight = 0.2
  /// A 6's loop closes above its foot (meterdigits' 6s: at 0.93 of the glyph's height or higher
  /// up); a hole lower than this is ink of the next digit on the wheel joined to it.
  public static let sixLoopBottom = 0.95
  /// The loops are looked at only when the reader is less sure than this of the 0 or 7.
  public static let loopCheckBelow = 0.99
  /// The classifier learnt a wheel caught between 9 and 0 as shares of the two: it sees one when
  /// it gives them together at least this much (docs/recognizers.md, R112).
  public static let nineToZeroShare = 0.9
  public init(
    network: ReaderNetwork, cells: CellClassifier? = nil, cellShare: Double = defaultCellShare,
    poolTemperature: Double = defaultPoolTemperature, cellGate: Double = defaultCellGate,
    cellViews: [CellView] = CellView.defaults, memoryShare: Double = DigitMemory.defaultShare,
    secondCells: CellClassifier? = nil, escalation: Double = defaultEscalation, loopCheck: Bool = true
  ) {
    self.network = network
    self.cells = cells
    self.cellShare = cellShare
    self.poolTemperature = poolTemperature
    self.memoryShare = memoryShare
    self.cellGate = cellGate
    self.cellViews = cellViews.isEmpty ? [CellView()] : cellViews
    self.secondCells = secondCells
    self.escalation = escalation
    self.loopCheck = loopCheck
    decoder = CTCDecoder(alphabet: Array(network.settings.classes))
  }

  /// This reader with `network` in place of its own, the classifiers and every setting kept.
  public func replacingNetwork(with network: ReaderNetwork) -> SequenceReader {
    SequenceReader(
      network: network, cells: cells, cellShare: cellShare, poolTemperature: poolTemperature, cellGate: cellGate,
      cellViews: cellViews, memoryShare: memoryShare, secondCells: secondCells, escalation: escalation,
      loopCheck: loopCheck)
  }

  /// The reader with the network and the cell classifier that ship with the plugin.
  public static func bundled() throws(ReaderError) -> SequenceReader {
    SequenceReader(network: try ReaderNetwork.bundled(), cells: try CellClassifier.bundled())
  }

  /// Reads the window. With `digits` > 0, the likeliest reading with that many digits (the
  /// unconstrained one when no path holds that many); without, the best path, holding at least
  /// one digit (``atLeastOneDigit(_:_:_:)``). The reading's confidence is the product
  /// of its characters' and of the least sure gap's (``gapConfidence(_:_:)``). A `memory` of the
  /// meter's confirmed readings joins the pool of each digit the classifier reads again, and
  /// corrects a mistake those readings repeat (``DigitMemory/mistaken(_:features:)``).
  public func read(_ image: VisionImage, digits: Int = 0, memory: DigitMemory = DigitMemory()) throws(ReaderError)
    -> EngineReading
  {
    let (scores, probabilities) = try columns(image)
    let emissions = decode(probabilities, digits: digits)
    let opinions = try cellOpinions(
      emissions, probabilities, image: image, features: !memory.isEmpty, alwaysAsked: memory.mistakenReads)
    let perColumn = pixelsPerColumn(image)
    var spans = [Int: Range<Int>]()
    for digit in digitCells(emissions, probabilities, image: image) { spans[digit.index] = digit.span }
    let symbols = emissions.indices.map { index in
      symbol(
        emissions[index], probabilities: probabilities, scores: scores, pixelsPerColumn: perColumn, image: image,
        cell: opinions[index], span: spans[index], memory: memory)
    }
    let gap = Self.gapConfidence(emissions, probabilities)
    return EngineReading(
      text: symbols.map(\.text).joined(), confidence: symbols.map(\.confidence).reduce(gap, *), symbols: symbols)
  }

  /// What a confirmed reading teaches: each digit's cell of the window (all of them, the sure
  /// ones too) remembered as the digit `value` has there. Only when the reader, not told the
  /// count, finds as many digits as `value` holds and reads at least half of them as it does: a
  /// value with a digit the window does not show (a leading wheel left out of it) would teach
  /// every cell the wrong digit. Empty then, or when the classifier has no features.
  public func memory(of image: VisionImage, confirmed value: String) throws(ReaderError) -> DigitMemory {
    let truth = value.compactMap(\.wholeNumberValue)
    var memory = DigitMemory()
    guard let cells, !truth.isEmpty else { return memory }
    let probabilities = try columns(image).probabilities
    let emissions = decode(probabilities, digits: 0)
    let digits = digitCells(emissions, probabilities, image: image)
    let read = digits.map { emissions[$0.index].character.wholeNumberValue }
    let agreeing = zip(read, truth).filter { $0 == $1 }.count
    guard digits.count == truth.count, 2 * agreeing >= truth.count else { return memory }
    let opinions = try cells.opinions(image, cells: digits.map(\.span), features: true)
    for (opinion, (digit, read)) in zip(opinions, zip(truth, read)) {
      if let features = opinion.features { memory.add(features: features, digit: digit, read: read) }
    }
    return memory
  }

  /// The network's raw scores for the window, and its column probabilities at the trained
  /// temperature.
  private func columns(_ image: VisionImage) throws(ReaderError) -> (scores: ColumnScores, probabilities: [[Double]]) {
    let settings = network.settings
    let scores = try network.scores(image)
    return (scores, scores.probabilities(classes: settings.classes.count, temperature: settings.temperature))
  }

  /// The window's pixels per output column.
  private func pixelsPerColumn(_ image: VisionImage) -> Double {
    Double(network.settings.stride) * Double(image.height) / Double(network.settings.height)
  }

  /// Each digit emission (points left out): its index among `emissions`, the column where the
  /// network is surest of it, and its cell seen in `view` (``cellSpans(peaks:width:lead:view:)``).
  private func digitCells(
    _ emissions: [CTCDecoder.Emission], _ probabilities: [[Double]], image: VisionImage, view: CellView = CellView()
  ) -> [(index: Int, peak: Int, span: Range<Int>)] {
    let digits = emissions.indices.filter { emissions[$0].character.isNumber }
    let peaks = digits.map { Self.peak(emissions[$0], probabilities) }
    let perColumn = pixelsPerColumn(image)
    let spans = Self.cellSpans(
      peaks: peaks.map { (Double($0) + 0.5) * perColumn }, width: image.width, lead: network.settings.peakLead,
      view: view)
    return digits.indices.map { (digits[$0], peaks[$0], spans[$0]) }
  }

  private func decode(_ probabilities: [[Double]], digits: Int) -> [CTCDecoder.Emission] {
    digits > 0
      ? decoder.constrained(probabilities, digits: digits) ?? decoder.greedy(probabilities)
      : Self.atLeastOneDigit(decoder.greedy(probabilities), probabilities, decoder)
  }

  /// The best path, or, when it holds no digit, the likeliest path that holds one: the host
  /// sends a digit window, and a faint display read as nothing is no reading at all. The
  /// confidence of such a reading is low by itself: its gaps looked like blanks.
  static func atLeastOneDigit(
    _ best: [CTCDecoder.Emission], _ probabilities: [[Double]], _ decoder: CTCDecoder
  ) -> [CTCDecoder.Emission] {
    guard !best.contains(where: { $0.character.isNumber }) else { return best }
    return decoder.constrained(probabilities, atLeast: 1) ?? best
  }

  /// The least chance, over the columns read as no character, that no other character stands
  /// there: one minus the likeliest class that is neither the blank nor the character read on
  /// either side of the gap (whose columns often share a little of its probability). A digit the
  /// decoding may have dropped lowers the reading's confidence so.
  static func gapConfidence(_ emissions: [CTCDecoder.Emission], _ probabilities: [[Double]]) -> Double {
    var confidence = 1.0
    var next = 0
    var previous: Int?
    for column in probabilities.indices {
      while next < emissions.count, emissions[next].columns.upperBound < column {
        previous = emissions[next].classIndex
        next += 1
      }
      if next < emissions.count, emissions[next].columns.contains(column) { continue }
      let neighbours: Set<Int> = [0, previous ?? 0, next < emissions.count ? emissions[next].classIndex : 0]
      let other = probabilities[column].indices.filter { !neighbours.contains($0) }.map { probabilities[column][$0] }
      confidence = min(confidence, 1 - (other.max() ?? 0))
    }
    return confidence
  }

  /// The column where the network is surest of the emission's character.
  static func peak(_ emission: CTCDecoder.Emission, _ probabilities: [[Double]]) -> Int {
    emission.columns.max { probabilities[$0][emission.classIndex] < probabilities[$1][emission.classIndex] }!
  }

  /// The cell classifier's opinion of each digit emission the network is less sure of than
  /// ``cellGate`` (nil for the others, for a point, or without a classifier): its cell read in
  /// each of ``cellViews`` (``cellSpans(peaks:width:lead:view:)``) and the views' probabilities
  /// pooled geometrically; with the first view's features when `features` is true. A digit the
  /// first classifier doubts (``escalation``) is read by ``secondCells`` too, and the two pooled.
  /// Digits read as one of `alwaysAsked` (a meter's ``DigitMemory/mistakenReads``) are read
  /// again however sure the network is.
  func cellOpinions(
    _ emissions: [CTCDecoder.Emission], _ probabilities: [[Double]], image: VisionImage, features: Bool = false,
    alwaysAsked: Set<Int> = []
  ) throws(ReaderError) -> [CellClassifier.Opinion?] {
    var opinions = [CellClassifier.Opinion?](repeating: nil, count: emissions.count)
    guard let cells, cellShare > 0 else { return opinions }
    let isUnsure = { (digit: (index: Int, peak: Int, span: Range<Int>)) in
      probabilities[digit.peak][emissions[digit.index].classIndex] < self.cellGate
        || emissions[digit.index].character.wholeNumberValue.map(alwaysAsked.contains) ?? false
    }
    let views = cellViews.map { view in
      digitCells(emissions, probabilities, image: image, view: view).filter(isUnsure)
    }
    guard let unsure = views.first, !unsure.isEmpty else { return opinions }
    let first = try pooledViews(cells, views, image: image, features: features)
    for (row, digit) in unsure.enumerated() { opinions[digit.index] = first[row] }
    guard let secondCells else { return opinions }
    let doubted = Self.doubted(
      first.map(\.probabilities), network: unsure.map { emissions[$0.index].character.wholeNumberValue },
      escalation: escalation)
    guard !doubted.isEmpty else { return opinions }
    let second = try pooledViews(secondCells, views.map { view in doubted.map { view[$0] } }, image: image)
    for (row, opinion) in zip(doubted, second) {
      opinions[unsure[row].index]?.probabilities = Self.geometricMean([first[row].probabilities, opinion.probabilities])
    }
    return opinions
  }

  /// The indices of the `opinions` (digit probabilities) whose likeliest digit is less likely
  /// than `escalation` or is not the digit the `network` read there.
  static func doubted(_ opinions: [[Double]], network: [Int?], escalation: Double) -> [Int] {
    zip(opinions, network).enumerated().filter { _, pair in
      let (digits, read) = pair
      guard let best = digits.indices.max(by: { digits[$0] < digits[$1] }) else { return false }
      return digits[best] < escalation || read != best
    }
    .map(\.offset)
  }

  /// `classifier`'s opinion of each digit of `views` (the same digits seen in each view), the
  /// views' probabilities pooled geometrically, with the first view's features.
  private func pooledViews(
    _ classifier: CellClassifier, _ views: [[(index: Int, peak: Int, span: Range<Int>)]], image: VisionImage,
    features: Bool = false
  ) throws(ReaderError) -> [CellClassifier.Opinion] {
    let count = views.first?.count ?? 0
    let found = try classifier.opinions(image, cells: views.flatMap { $0.map(\.span) }, features: features)
    return (0..<count).map { row in
      let seen = views.indices.map { found[$0 * count + row] }
      return CellClassifier.Opinion(
        probabilities: Self.geometricMean(seen.map(\.probabilities)), features: seen[0].features)
    }
  }

  /// The normalised geometric mean of probability vectors (one vector: itself).
  static func geometricMean(_ opinions: [[Double]]) -> [Double] {
    guard opinions.count > 1, let first = opinions.first else { return opinions.first ?? [] }
    let pooled = first.indices.map { digit in
      exp(opinions.map { log(max($0[digit], 1e-12)) }.reduce(0, +) / Double(opinions.count))
    }
    let total = pooled.reduce(0, +)
    return pooled.map { $0 / total }
  }

  /// Each digit's cell in the window's columns, from the pixel where the network is surest of it:
  /// a row's pitch wide (the median step between its digits), centred `lead` of a pitch left of
  /// that pixel (the network's ``ReaderNetwork/Settings/peakLead``); a window of one digit is its
  /// cell, its width the pitch. A `view` moves and widens the cell by fractions of the pitch.
  public static func cellSpans(peaks: [Double], width: Int, lead: Double, view: CellView = CellView())
    -> [Range<Int>]
  {
    guard peaks.count > 1 else {
      guard !peaks.isEmpty else { return [] }
      return [span(centre: Double(width) / 2, pitch: Double(width), view: view)]
    }
    let steps = zip(peaks.dropFirst(), peaks).map { $0 - $1 }.sorted()
    let pitch = max(2, steps[steps.count / 2])
    return peaks.map { peak in span(centre: peak - lead * pitch, pitch: pitch, view: view) }
  }

  private static func span(centre: Double, pitch: Double, view: CellView) -> Range<Int> {
    let middle = centre + view.shift * pitch
    let half = view.width * pitch / 2
    let left = Int((middle - half).rounded())
    return left..<max(left + 1, Int((middle + half).rounded()))
  }

  /// The network's digit probabilities at a column, pooled with the cell classifier's
  /// (geometric, `cellShare` its weight) when there is one; they keep the network's share for
  /// "a digit" (against the blank and the point).
  func digitProbabilities(_ column: [Double], cell: [Double]?) -> [Double] {
    let network = (0..<10).map { digit in decoder.classOfDigit[digit].map { column[$0] } ?? 0 }
    guard let cell, cell.count == 10 else { return network }
    let mass = network.reduce(0, +)
    guard mass > 0 else { return network }
    let pooled = zip(network, cell).map { reader, cell in
      exp(((1 - cellShare) * log(max(reader / mass, 1e-12)) + cellShare * log(max(cell, 1e-12))) / poolTemperature)
    }
    let total = pooled.reduce(0, +)
    return pooled.map { $0 / total * mass }
  }

  private func symbol(
    _ emission: CTCDecoder.Emission, probabilities: [[Double]], scores: ColumnScores, pixelsPerColumn: Double,
    image: VisionImage, cell: CellClassifier.Opinion?, span: Range<Int>?, memory: DigitMemory
  ) -> Symbol {
    let column = probabilities[Self.peak(emission, probabilities)]
    let box = Rect(
      x: Int32(Double(emission.columns.lowerBound) * pixelsPerColumn),
      y: 0, width: Int32(max(1, Double(emission.columns.count) * pixelsPerColumn)), height: Int32(image.height))
    guard emission.character.isNumber else {
      return Symbol(text: String(emission.character), confidence: column[emission.classIndex], box: box)
    }
    var digits = memory.pool(
      digitProbabilities(column, cell: cell?.probabilities), features: cell?.features, share: memoryShare)
    let decided = Self.likeliest(digits)
    let roll = WheelPosition(scores, classes: probabilities[0].count, columns: emission.columns)
    // A 6 the network took for a 0 or a 7 (its stem unlike any it learnt), told by its loop; not
    // on a wheel between 9 and 0, whose 9's tail above the 0's loop makes the same shape, when
    // the classifier sees that wheel too (the roll head puts straight-stemmed 6s there as well).
    let betweenNineAndZero =
      roll?.midRoll(margin: Self.settledMargin) == 9
      && cell.map { Self.showsNineToZero($0.probabilities) } ?? true
    if loopCheck, decided == 0 || decided == 7, digits[decided] < Self.loopCheckBelow, !betweenNineAndZero,
      let span, let loops = try? image.glyphLoops(columns: span), Self.closesSixLoop(loops)
    {
      digits.swapAt(decided, 6)
    }
    // A digit this meter's confirmed readings say the reader mistakes for the one decided.
    let checked = Self.likeliest(digits)
    if let features = cell?.features, let shown = memory.mistaken(checked, features: features) {
      digits.swapAt(checked, shown)
    }
    let digitProbability = { [digits] (digit: Int) in digits[digit] }
    let digit = Self.likeliest(digits)
    let alternatives = (0..<10).filter { $0 != digit }.sorted { digitProbability($0) > digitProbability($1) }
      .prefix(2).map { Alternative(text: String($0), confidence: digitProbability($0)) }
    guard let roll, let lower = roll.midRoll(margin: Self.settledMargin), [lower, (lower + 1) % 10].contains(digit)
    else {
      return Symbol(text: String(digit), confidence: digitProbability(digit), box: box, alternatives: alternatives)
    }
    // Caught between `lower` and the next digit: which of the two the window shows is the
    // classes' call (the position head misjudges settled wheels of unseen meters, often by more
    // than the margin); the roll says the reading may be either, and caps the confidence.
    let upper = (lower + 1) % 10
    let other = digit == lower ? upper : lower
    return Symbol(
      text: String(digit),
      confidence: min(WheelRoll.confidenceLimit, digitProbability(lower) + digitProbability(upper)), box: box,
      alternatives: [Alternative(text: String(other), confidence: digitProbability(other))],
      roll: WheelRoll(from: String(lower), fraction: roll.value - roll.value.rounded(.down)))
  }
}

extension SequenceReader {
  /// The digit of highest probability among a digit's ten.
  static func likeliest(_ digits: [Double]) -> Int {
    digits.indices.max { digits[$0] < digits[$1] }!
  }

  /// Whether the cell classifier's digit `probabilities` show a wheel caught between 9 and 0.
  static func showsNineToZero(_ probabilities: [Double]) -> Bool {
    probabilities.count == 10 && probabilities[9] + probabilities[0] >= nineToZeroShare
  }

  /// Whether a glyph read as 0 or 7 is a 6 by its loops: one loop, starting at ``sixLoopTop`` or
  /// lower down. A 6 whose stem is straight (DIN 1451 lettering, as many electricity meters print
  /// it) is read as 0 or 7 by networks that learnt curved stems; its loop still sits low.
  public static func closesSixLoop(_ loops: VisionImage.GlyphLoops) -> Bool {
    loops.standsFree && loops.holes == 1 && loops.top >= sixLoopTop && loops.bottom - loops.top >= sixLoopHeight
      && loops.bottom <= sixLoopBottom
  }
}

/// Where a wheel stands, from the network's (cos, sin) columns over a digit: a value in [0, 10),
/// 4.5 half-way from 4 to 5.
struct WheelPosition {
  var value: Double

  init?(_ scores: ColumnScores, classes: Int, columns: ClosedRange<Int>) {
    guard scores.channels >= classes + 2 else { return nil }
    var (x, y) = (0.0, 0.0)
    for column in columns {
      let wheel = scores.wheel(classes: classes, column: column)
      x += wheel.cos
      y += wheel.sin
    }
    guard x * x + y * y > 1e-6 else { return nil }
    let turn = atan2(y, x) / (2 * Double.pi)
    value = (turn < 0 ? turn + 1 : turn) * 10
  }

  /// The lower digit when the wheel is more than `margin` past it and short of the next by more
  /// than `margin`, else `nil` (settled).
  func midRoll(margin: Double) -> Int? {
    let fraction = value - value.rounded(.down)
    guard fraction > margin, fraction < 1 - margin else { return nil }
    return Int(value.rounded(.down)) % 10
  }
}

/// Where the cell classifier reads a digit from, relative to the digit's cell: its centre moved
/// by `shift` and its width scaled by `width`, both in pitches (the step between digits).
public struct CellView: Sendable, Equatable {
  public var shift: Double
  public var width: Double

  public init(shift: Double = 0, width: Double = 1) {
    self.shift = shift
    self.width = width
  }

  /// The views the reader uses unless told otherwise.
  public static let defaults = [CellView()]
}
