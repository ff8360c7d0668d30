import Foundation
import PhotometerProtocol
import PhotometerVision

/// Reads a whole digit window at once: the network scores every column of the window, CTC
/// decoding turns the columns into characters (digits and a decimal point), so the reader finds
/// the digits and their count itself. A digit count, when the meter has one, constrains the
/// decoding to paths with that many digits.
public struct SequenceReader: Sendable {
  public let network: ReaderNetwork
  let decoder: CTCDecoder

  /// A wheel whose position is more than this fraction past a digit and less than this short of
  /// the next is caught mid-roll (meterdigits labels x.2 to x.8 so; x.1 reads x, x.9 reads x + 1).
  public static let settledMargin = 0.15
  public init(network: ReaderNetwork) {
    self.network = network
    decoder = CTCDecoder(alphabet: Array(network.settings.classes))
  }

  /// The reader with the network that ships with the plugin.
  public static func bundled() throws(ReaderError) -> SequenceReader {
    SequenceReader(network: try ReaderNetwork.bundled())
  }

  /// Reads the window. With `digits` > 0, the likeliest reading with that many digits (the
  /// unconstrained one when no path holds that many); without, the best path, holding at least
  /// one digit (``atLeastOneDigit(_:_:_:)``). The reading's confidence is the product
  /// of its characters' and of the least sure gap's (``gapConfidence(_:_:)``).
  public func read(_ image: VisionImage, digits: Int = 0) throws(ReaderError) -> EngineReading {
    let settings = network.settings
    let scores = try network.scores(image)
    let classes = settings.classes.count
    let probabilities = scores.probabilities(classes: classes, temperature: settings.temperature)
    let emissions =
      digits > 0
      ? decoder.constrained(probabilities, digits: digits) ?? decoder.greedy(probabilities)
      : Self.atLeastOneDigit(decoder.greedy(probabilities), probabilities, decoder)
    let pixelsPerColumn = Double(settings.stride) * Double(image.height) / Double(settings.height)
    let symbols = emissions.map { emission in
      symbol(emission, probabilities: probabilities, scores: scores, pixelsPerColumn: pixelsPerColumn, image: image)
    }
    let gap = Self.gapConfidence(emissions, probabilities)
    return EngineReading(
      text: symbols.map(\.text).joined(), confidence: symbols.map(\.confidence).reduce(gap, *), symbols: symbols)
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

  private func symbol(
    _ emission: CTCDecoder.Emission, probabilities: [[Double]], scores: ColumnScores, pixelsPerColumn: Double,
    image: VisionImage
  ) -> Symbol {
    let peak = emission.columns.max { probabilities[$0][emission.classIndex] < probabilities[$1][emission.classIndex] }!
    let column = probabilities[peak]
    let box = Rect(
      x: Int32(Double(emission.columns.lowerBound) * pixelsPerColumn),
      y: 0, width: Int32(max(1, Double(emission.columns.count) * pixelsPerColumn)), height: Int32(image.height))
    guard let digit = emission.character.wholeNumberValue else {
      return Symbol(text: String(emission.character), confidence: column[emission.classIndex], box: box)
    }
    let digitProbability = { (digit: Int) in decoder.classOfDigit[digit].map { column[$0] } ?? 0 }
    let alternatives = (0..<10).filter { $0 != digit }.sorted { digitProbability($0) > digitProbability($1) }
      .prefix(2).map { Alternative(text: String($0), confidence: digitProbability($0)) }
    let roll = WheelPosition(scores, classes: probabilities[0].count, columns: emission.columns)
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
