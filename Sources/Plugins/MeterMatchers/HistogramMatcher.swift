import PhotometerProtocol
import PhotometerVision

/// Which meter is this, by colour: compares the photo's colour histogram with each reference's.
///
/// Reference histograms are computed once per photo (keyed by its SHA-256) and kept, so a query
/// costs one histogram and one comparison per reference.
public struct HistogramMatcher: Sendable {
  public let mode: ColourHistogram.Mode
  private var known: [String: (histogram: ColourHistogram, colour: String)] = [:]

  public init(mode: ColourHistogram.Mode) {
    self.mode = mode
  }

  /// Whether the reference photo with this SHA-256 has been learnt.
  public func knows(_ sha256: String) -> Bool {
    known[sha256] != nil
  }

  /// Learns a reference photo.
  public mutating func learn(_ sha256: String, image: VisionImage) throws(VisionError) {
    known[sha256] = (try ColourHistogram(of: image, mode: mode), try image.dominantColour())
  }

  /// Ranks the meters of `references` (all learnt) for the photo, best first.
  public func rank(_ image: VisionImage, references: [Reference]) throws(VisionError) -> [Candidate] {
    let query = try ColourHistogram(of: image, mode: mode)
    let entries = references.compactMap { reference in known[reference.sha256].map { (reference.meter, $0) } }
    switch mode {
    case .seed: return Self.majority(query, entries)
    case .robust: return Self.similarity(query, entries)
    }
  }

  /// The reference application's rule: each of the four measures votes for its best reference,
  /// and a meter's score is its votes. Confidence is the share of votes, so it never says
  /// "unknown": the method cannot.
  private static func majority(
    _ query: ColourHistogram, _ entries: [(String, (histogram: ColourHistogram, colour: String))]
  ) -> [Candidate] {
    var votes: [String: Int] = [:]
    for measure in ColourHistogram.Measure.allCases {
      let scored = entries.map { ($0.0, query.compare($0.1.histogram, by: measure)) }
      let best = measure.higherIsBetter ? scored.max { $0.1 < $1.1 } : scored.min { $0.1 < $1.1 }
      if let best {
        votes[best.0, default: 0] += 1
      }
    }
    let colours = Dictionary(entries.map { ($0.0, $0.1.colour) }, uniquingKeysWith: { first, _ in first })
    return votes.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { meter, count in
      Candidate(meter: meter, score: Double(count), confidence: Double(count) / 4, colour: colours[meter] ?? "")
    }
  }

  /// Robust mode: likeness is 1 - Bhattacharyya distance; a meter scores its best reference.
  /// Confidence grows with the likeness and with the margin over the next meter (see
  /// docs/identify.md for how the constants were measured).
  private static func similarity(
    _ query: ColourHistogram, _ entries: [(String, (histogram: ColourHistogram, colour: String))]
  ) -> [Candidate] {
    var best: [String: (likeness: Double, colour: String)] = [:]
    for (meter, entry) in entries {
      let likeness = 1 - query.compare(entry.histogram, by: .bhattacharyya)
      if likeness > best[meter]?.likeness ?? -1 {
        best[meter] = (likeness, entry.colour)
      }
    }
    let ranked = best.sorted { ($0.value.likeness, $1.key) > ($1.value.likeness, $0.key) }
    return ranked.enumerated().map { index, entry in
      let next = index + 1 < ranked.count ? ranked[index + 1].value.likeness : 0
      let margin = index == 0 ? entry.value.likeness - next : 0
      return Candidate(
        meter: entry.key, score: entry.value.likeness,
        confidence: HistogramCalibration.confidence(likeness: entry.value.likeness, margin: margin),
        colour: entry.value.colour)
    }
  }
}

/// Turns the robust histogram's likeness and margin into a belief.
public enum HistogramCalibration {
  /// Likeness at which a match starts to count, and where it is as good as it gets.
  public static let floor = 0.80
  public static let ceiling = 0.95
  /// A margin over the next meter this large or larger counts fully.
  public static let fullMargin = 0.04
  /// Colour alone never proves a meter: its belief is capped so that it needs another voice.
  public static let cap = 0.6

  public static func confidence(likeness: Double, margin: Double) -> Double {
    let strength = min(max((likeness - floor) / (ceiling - floor), 0), 1)
    let separation = min(max(margin / fullMargin, 0), 1)
    return cap * strength * separation
  }
}
