import Foundation
import PhotometerProtocol
import PhotometerVision

/// Which meter is this, by its print: ORB keypoints matched through one LSH index over every
/// reference, the best few verified with a RANSAC homography whose inliers are the score. In a
/// large household half of the few are those whose visual words the photo shares most.
///
/// Keypoints of a reference are computed once per photo (keyed by its SHA-256) and kept, and with
/// ``Settings/cache`` also on disk, so that a new process (after a restart) reads them back
/// instead of learning every reference again; the index is rebuilt only when the set of
/// references changes. A request for a few references (``Settings/fewReferences``: one meter's, or a
/// second look's) gets an index of its own, so the household's is not rebuilt after it.
public final class KeypointMatcher: @unchecked Sendable {
  // Used by one plugin request at a time (PluginServer serves requests in order).

  /// Settings, with the defaults the benchmark was measured with.
  public struct Settings: Sendable {
    /// ORB keypoints per photo.
    public var features = 1200
    /// More keypoints of a reference, from each of its views as seen from the side.
    public var tiltedFeatures = 600
    /// How many references, by index votes, get the homography check (more in large households:
    /// ``verified(among:)``).
    public var verify = 8
    /// References past which a query verifies twice ``verify`` and the index draws visual words,
    /// by which half of them are chosen (docs/recognizers.md, *A longer shortlist for large
    /// households* and *Visual words*).
    public var largeHousehold = 500
    /// References past which a query verifies four times ``verify`` (docs/recognizers.md, *32
    /// verified past 5,000 references*).
    public var veryLargeHousehold = 5000

    /// How many references a query verifies among `references`: the more there are, the lower
    /// the index's votes and words rank the right meter.
    public func verified(among references: Int) -> Int {
      verify * (references > veryLargeHousehold ? 4 : references > largeHousehold ? 2 : 1)
    }
    /// Past ``veryLargeHousehold``, how many references of each ranking (pose votes, words) are
    /// ranked again by whether their keypoints that share a word with the photo's agree on one
    /// pose, before the first ``verified(among:)`` of that ranking are verified
    /// (docs/recognizers.md, *Words checked by their poses*).
    public var posedCandidates = 256

    /// How many references of each ranking a query checks by their poses among `references`.
    public func posed(among references: Int) -> Int {
      references > veryLargeHousehold ? posedCandidates : 0
    }
    /// Requests of at most this many references keep their index apart from the household's,
    /// which takes seconds to build at 10,000 meters (theirs milliseconds).
    public var fewReferences = ReferenceIntake.fewReferences
    /// Hamming distance (of 256 bits) beyond which a nearest neighbour is no match.
    public var maxDistance = 64
    /// Photos are shrunk to this longer side before detection.
    public var maxSide = 640
    /// Threads a query's matching and verification share, and building the index (the answer is
    /// the same for any number).
    public var threads = 2
    /// A folder where learnt references are kept across processes (nil: in memory only). A file
    /// is named by the photo's SHA-256, its digit window and the settings that shape keypoints,
    /// so a changed window or setting learns the photo again.
    public var cache: URL?

    public init() {}
  }

  public let settings: Settings
  /// By the reference photo's SHA-256, with the digit window its keypoints were learnt around.
  private var known: [String: (keypoints: Keypoints, width: Int, height: Int, colour: String, window: Rect?)] = [:]
  /// The household's index, and the last request's of at most ``Settings/fewReferences``.
  private var indexes: [(order: [String], index: KeypointIndex)?] = [nil, nil]
  /// How many indexes were built: what keeping them saves.
  private(set) var indexesBuilt = 0
  /// The last photo's keypoints, by its size and pixels: the host's second look at a few meters
  /// sends the same photo again.
  private var lastQuery: (size: [Int], pixels: Int, keypoints: Keypoints)?
  /// How many photos' keypoints were detected: what keeping the last saves.
  private(set) var photosDetected = 0

  public init(settings: Settings = Settings()) {
    self.settings = settings
  }

  /// Whether the reference has been learnt, with its digit window as it is now.
  public func knows(_ reference: Reference) -> Bool {
    known[reference.sha256].map { $0.window == reference.roi } ?? false
  }

  /// Learns a reference photo, decoded with ``Settings/maxSide``: its keypoints on the meter
  /// around its digit window when it has one (see ``Keypoints``), else all over the photo.
  public func learn(_ reference: Reference, image: VisionImage) throws(VisionError) {
    let keypoints = try Keypoints(
      of: image, maxFeatures: settings.features, tiltedFeatures: settings.tiltedFeatures, window: reference.roi)
    let entry = LearntReference(
      width: Int((Double(image.width) / image.scale).rounded()),
      height: Int((Double(image.height) / image.scale).rounded()), colour: try image.dominantColour())
    remember(reference, keypoints, entry)
    writeCached(reference, keypoints, entry)
  }

  /// What a reference keeps besides its keypoints: the photo's size in its own pixels and colour.
  private struct LearntReference: Codable {
    var width: Int
    var height: Int
    var colour: String
  }

  private func remember(_ reference: Reference, _ keypoints: Keypoints, _ entry: LearntReference) {
    known[reference.sha256] = (keypoints, entry.width, entry.height, entry.colour, reference.roi)
    indexes = [nil, nil]  // a photo learnt again around another window keeps its place in the order
  }

  /// The cache files' version: raise it whenever what ``Keypoints`` detects changes, so that a
  /// new build learns the references again instead of reading an old build's keypoints.
  static let cacheVersion = 1

  /// How `reference` is learnt as now: the window, the settings that shape keypoints, the
  /// cache's version.
  private func shape(_ reference: Reference) -> String {
    let window = reference.roi.map { "\($0.x)_\($0.y)_\($0.width)_\($0.height)" } ?? "whole"
    let shaping = "f\(settings.features)-t\(settings.tiltedFeatures)-m\(settings.maxSide)"
    return "\(window)-\(shaping)-v\(Self.cacheVersion).keypoints"
  }

  /// Keeps `reference` in ``Settings/cache``: ``LearntReference``, then ``Keypoints/encoded()``.
  private func writeCached(_ reference: Reference, _ keypoints: Keypoints, _ entry: LearntReference) {
    guard let cache = settings.cache.map(ReferenceCache.init), let bytes = try? keypoints.encoded() else { return }
    cache.write(entry, bytes, sha256: reference.sha256, shape: shape(reference))
  }

  /// Reads `reference`, with its digit window as it is now, back from ``Settings/cache``; false
  /// when it has no file there or the file does not read.
  public func recall(_ reference: Reference) -> Bool {
    guard let cache = settings.cache.map(ReferenceCache.init),
      let (entry, bytes) = cache.read(LearntReference.self, sha256: reference.sha256, shape: shape(reference)),
      let keypoints = try? Keypoints(encoded: bytes)
    else { return false }
    remember(reference, keypoints, entry)
    return true
  }

  /// The photo's keypoints, detected unless it is the last photo ranked.
  private func keypoints(of image: VisionImage) throws(VisionError) -> Keypoints {
    let size = [image.width, image.height, image.channels]
    var hasher = Hasher()
    image.pixels.withUnsafeBytes { hasher.combine(bytes: $0) }
    let pixels = hasher.finalize()
    if let last = lastQuery, last.size == size, last.pixels == pixels {
      return last.keypoints
    }
    let detected = try Keypoints(of: image, maxFeatures: settings.features)
    photosDetected += 1
    lastQuery = (size, pixels, detected)
    return detected
  }

  /// Ranks the meters of `references` (all learnt) for the photo (decoded with
  /// ``Settings/maxSide``), best first; only verified meters are candidates.
  public func rank(_ image: VisionImage, references: [Reference]) throws(VisionError) -> [Candidate] {
    let usable = references.filter(knows)
    guard !usable.isEmpty else { return [] }
    let order = usable.map(\.sha256)
    let slot = usable.count <= settings.fewReferences ? 1 : 0
    if indexes[slot]?.order != order {
      indexesBuilt += 1
      indexes[slot] = (
        order,
        try KeypointIndex(
          order.map { known[$0]!.keypoints }, threads: settings.threads, words: order.count > settings.largeHousehold)
      )
    }
    let query = try keypoints(of: image)
    var best: [String: Candidate] = [:]
    for match in try indexes[slot]!.index.matches(
      for: query, maxDistance: settings.maxDistance,
      verify: settings.verified(among: usable.count), posed: settings.posed(among: usable.count),
      threads: settings.threads)
    where match.inliers > 0 {
      let reference = usable[match.reference]
      let entry = known[reference.sha256]!
      guard match.inliers > Int(best[reference.meter]?.score ?? 0) else { continue }
      let corners = [
        (0.0, 0.0), (Double(entry.width), 0), (Double(entry.width), Double(entry.height)), (0, Double(entry.height)),
      ].map { project($0, through: match.homography) }
      best[reference.meter] = Candidate(
        meter: reference.meter, score: Double(match.inliers), confidence: 0,
        outline: corners.map { Point(x: Float($0.x), y: Float($0.y)) }, homography: match.homography,
        colour: entry.colour)
    }
    var ranked = best.values.sorted { ($0.score, $1.meter) > ($1.score, $0.meter) }
    for position in ranked.indices {
      // The first leads the second; every other trails the first.
      let other = position == 0 ? (ranked.count > 1 ? ranked[1].score : 0) : ranked[0].score
      ranked[position].confidence = KeypointCalibration.confidence(
        score: ranked[position].score, lead: ranked[position].score - other)
    }
    return ranked
  }
}

/// Turns the verified score (grid cells holding inliers) and its lead over the next meter into
/// P(this is the meter), by logistic regression fitted with Tools/calibrate-identify.py on
/// rendered households of other seeds than the benchmark's (varied and look-alike, 100 meters;
/// look-alike, 1,000 meters; with unknown meters). A right meter named first scores 26 to 46
/// (5th to 95th percentile, median 36); an unknown meter's best, from print that look-alikes
/// share, 10 at the median and up to 19.
public enum KeypointCalibration {
  public static let intercept = -13.520
  public static let perScore = 0.6826
  public static let perLead = 0.1761

  /// - Parameter lead: the score minus the next meter's (for the first), or minus the first's
  ///   (for every other, so negative).
  public static func confidence(score: Double, lead: Double) -> Double {
    1 / (1 + exp(-(intercept + perScore * score + perLead * lead)))
  }
}
