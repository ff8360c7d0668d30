import PhotometerProtocol

/// Which of the digit rows found in a whole photo is *the* reading (a photo of a glucose meter
/// with a clock beside its value, a thermometer on a leaflet).
///
/// Each row has been read. When the device's kind is known, a row whose value lies in the
/// kind's physical range (``Plausibility/physicalRange(_:unit:)``, either unit) wins, the more
/// confident first; otherwise, and when no row fits the kind, among the rows read with some
/// confidence the one with the most of prominence (the finder's score: more digits, taller),
/// confidence and agreement between the digits read and the digits the finder saw; else the
/// most confident.
public enum WindowChoice {
  /// A row found and read.
  public struct Candidate: Sendable {
    public var box: Rect
    /// The finder's score: more digits, taller, more alike.
    public var score: Double
    /// How many digits the finder saw in the row.
    public var digits: Int
    public var value: String
    public var confidence: Double

    public init(box: Rect, score: Double, digits: Int, value: String, confidence: Double) {
      self.box = box
      self.score = score
      self.digits = digits
      self.value = value
      self.confidence = confidence
    }

    /// Prominence, confidence and agreement of the digit counts together.
    var weight: Double {
      let read = value.filter(\.isNumber).count
      let agreement = Double(min(read, digits)) / Double(max(read, digits, 1))
      return score * confidence * agreement
    }
  }

  /// A photo whose shorter side is under ``smallestScene`` pixels, or whose best row found covers
  /// more than ``windowShare`` of its area or (with its margin) more than ``rowShare`` of its
  /// width, is itself a digit window (a crop, a strip, a counter's window): it is read whole.
  public static let smallestScene = 160
  public static let windowShare = 0.4
  public static let rowShare = 0.7

  /// Whether rows should be found and read in a photo of this size with these rows found (best
  /// first), rather than the photo read whole.
  public static func isScene(width: Int, height: Int, rows: [Rect]) -> Bool {
    guard min(width, height) >= smallestScene, let best = rows.first else { return false }
    return Double(best.width) * Double(best.height) < windowShare * Double(width) * Double(height)
      && Double(best.width) < rowShare * Double(width)
  }

  /// The least confidence for a row to count as read rather than as something that looks like
  /// digits.
  public static let readConfidence = 0.5

  /// The index of the chosen candidate; nil when none was read at all.
  public static func choose(_ candidates: [Candidate], kind: MeterKind?) -> Int? {
    let read = candidates.indices.filter { !candidates[$0].value.isEmpty }
    guard !read.isEmpty else { return nil }
    if let kind {
      let fitting = read.filter { fits(candidates[$0].value, kind: kind) }
      if let best = fitting.max(by: { candidates[$0].confidence < candidates[$1].confidence }) {
        return best
      }
    }
    let confident = read.filter { candidates[$0].confidence >= readConfidence }
    if let best = confident.max(by: { candidates[$0].weight < candidates[$1].weight }) {
      return best
    }
    return read.max { candidates[$0].confidence < candidates[$1].confidence }
  }

  /// Whether `value` is one a device of `kind` shows, in either of its units.
  static func fits(_ value: String, kind: MeterKind) -> Bool {
    guard let number = Double(value) else { return false }
    let ranges = ["mg/dL", "mmol/L", "C", "F"].compactMap { Plausibility.physicalRange(kind, unit: $0) }
    return ranges.isEmpty || ranges.contains { $0.contains(number) }
  }
}
