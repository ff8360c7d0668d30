import Foundation
import PhotometerProtocol
import PhotometerVision
import Synchronization

/// Which meter is this, by colour: compares the photo's colour histogram with each reference's.
///
/// Reference histograms are computed once per photo (keyed by its SHA-256) and kept, so a query
/// costs one histogram and one comparison per reference; with a `cache` folder also on disk, so a
/// new process reads them back instead of asking for every photo again.
public struct HistogramMatcher: Sendable {
  public let mode: ColourHistogram.Mode
  public let cache: URL?
  private var known: [String: (histogram: ColourHistogram, colour: String)] = [:] {
    didSet { table = Table.Cache() }  // a copy of the matcher keeps the cache of what it knew
  }
  private var table = Table.Cache()

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
    switch mode {
    case .seed:
      let entries = references.compactMap { reference in known[reference.sha256].map { (reference.meter, $0) } }
      return Self.majority(query, entries)
    case .robust:
      return Self.similarity(query, table.of(references, known: known))
    }
  }

  /// The learnt references in the order a query lists them, laid out for comparing a photo with
  /// every one: at 10,000 references a lookup by SHA-256 and a dictionary by meter name for each
  /// cost more than comparing the histograms.
  struct Table: Sendable {
    /// What it was made for: each reference's photo and meter, as the query listed them.
    var order: [String] = []
    var named: [String] = []
    var meters: [String] = []
    /// Per row: its meter's index in `meters`, its histogram, its photo's colour.
    var meterOf: [Int] = []
    var histograms: [ColourHistogram] = []
    var colours: [String] = []

    init() {}

    init(_ references: [Reference], known: [String: (histogram: ColourHistogram, colour: String)]) {
      order = references.map(\.sha256)
      named = references.map(\.meter)
      var index: [String: Int] = [:]
      for reference in references {
        guard let entry = known[reference.sha256] else { continue }
        let meter =
          index[reference.meter]
          ?? {
            meters.append(reference.meter)
            index[reference.meter] = meters.count - 1
            return meters.count - 1
          }()
        meterOf.append(meter)
        histograms.append(entry.histogram)
        colours.append(entry.colour)
      }
    }

    /// The last table made for the household and for a few references (one meter's, or a second
    /// look's: at most ``ReferenceIntake/fewReferences``), for the references of the next
    /// query (mostly the same; a meter renamed or a photo moved to another meter makes a new one).
    final class Cache: Sendable {
      private let last = Mutex([Table(), Table()])

      func of(_ references: [Reference], known: [String: (histogram: ColourHistogram, colour: String)]) -> Table {
        let slot = references.count <= ReferenceIntake.fewReferences ? 1 : 0
        return last.withLock { last in
          if !last[slot].order.elementsEqual(references.lazy.map(\.sha256))
            || !last[slot].named.elementsEqual(references.lazy.map(\.meter))
          {
            last[slot] = Table(references, known: known)
          }
          return last[slot]
        }
      }
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
  private static func similarity(_ query: ColourHistogram, _ table: Table) -> [Candidate] {
    var best = [Double](repeating: -1, count: table.meters.count)
    var bestRow = [Int](repeating: 0, count: table.meters.count)
    for row in table.histograms.indices {
      let likeness = query.likeness(to: table.histograms[row])
      let meter = table.meterOf[row]
      if likeness > best[meter] {
        best[meter] = likeness
        bestRow[meter] = row
      }
    }
    let ranked = table.meters.indices.sorted {
      (best[$0], table.meters[$1]) > (best[$1], table.meters[$0])
    }
    return ranked.enumerated().map { index, meter in
      // The first's margin over the second; every other's (negative) to the first. A lone meter
      // has no margin: nothing was told apart (its likeness less 0 made a home of one meter sure
      // of every photo).
      let other = index == 0 ? (ranked.count > 1 ? best[ranked[1]] : best[meter]) : best[ranked[0]]
      let margin = best[meter] - other
      return Candidate(
        meter: table.meters[meter], score: best[meter],
        confidence: HistogramCalibration.confidence(likeness: best[meter], margin: margin),
        colour: table.colours[bestRow[meter]])
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
