import Foundation
import PhotometerProtocol
import PhotometerVision

/// Which meter is this, by colour: compares the photo's colour histogram with each reference's.
///
/// Reference histograms are computed once per photo (keyed by its SHA-256) and kept, so a query
/// costs one histogram and one comparison per reference; with a `cache` folder also on disk, so a
/// new process reads them back instead of asking for every photo again.
public struct HistogramMatcher: Sendable {
  public let mode: ColourHistogram.Mode
  public let cache: URL?
  private var known: [String: (histogram: ColourHistogram, colour: String)] = [:]

  public init(mode: ColourHistogram.Mode, cache: URL? = nil) {
    self.mode = mode
    self.cache = cache
  }

  /// The cache files' version: raise it whenever what ``ColourHistogram`` computes changes.
  static let cacheVersion = 1

  /// Whether the reference's photo has been learnt.
  public func knows(_ reference: Reference) -> Bool {
    known[reference.sha256] != nil
  }

  /// Reads the reference's histogram back from `cache`; false when it has no file there or the
  /// file does not read.
  public mutating func recall(_ reference: Reference) -> Bool {
    guard let cache = cache.map(ReferenceCache.init),
      let (colour, bytes) = cache.read(String.self, sha256: reference.sha256, shape: shape),
      bytes.count % MemoryLayout<Float>.size == 0,
      let histogram = try? ColourHistogram(
        mode: mode,
        bins: bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) })
    else { return false }
    known[reference.sha256] = (histogram, colour)
    return true
  }

  /// Learns a reference's photo, all of it.
  public mutating func learn(_ reference: Reference, image: VisionImage) throws(VisionError) {
    let learnt = (try ColourHistogram(of: image, mode: mode), try image.dominantColour())
    known[reference.sha256] = learnt
    if let cache = cache.map(ReferenceCache.init) {
      let bytes = learnt.0.bins.withUnsafeBytes { Array($0) }
      cache.write(learnt.1, bytes, sha256: reference.sha256, shape: shape)
    }
  }

  private var shape: String { "\(mode.rawValue)-v\(Self.cacheVersion).histogram" }

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
  /// Confidence from the likeness and the margin (``HistogramCalibration``).
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
      // The first's margin over the second; every other's (negative) to the first. A lone meter
      // has no margin: nothing was told apart (its likeness less 0 made a home of one meter sure
      // of every photo).
      let other =
        index == 0 ? (ranked.count > 1 ? ranked[1].value.likeness : entry.value.likeness) : ranked[0].value.likeness
      let margin = entry.value.likeness - other
      return Candidate(
        meter: entry.key, score: entry.value.likeness,
        confidence: HistogramCalibration.confidence(likeness: entry.value.likeness, margin: margin),
        colour: entry.value.colour)
    }
  }
}

/// Turns the robust histogram's likeness and its margin over the next meter into P(this is the
/// meter), by logistic regression fitted like ``KeypointCalibration`` (Tools/calibrate-identify.py).
/// Colour alone is a weak witness among look-alikes: its beliefs rarely pass 0.5, and the vote
/// weighs it less than the keypoints.
public enum HistogramCalibration {
  public static let intercept = -11.076
  public static let perLikeness = 11.2568
  public static let perMargin = 45.5613

  public static func confidence(likeness: Double, margin: Double) -> Double {
    1 / (1 + exp(-(intercept + perLikeness * likeness + perMargin * margin)))
  }
}
