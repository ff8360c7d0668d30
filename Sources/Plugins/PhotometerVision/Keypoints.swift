import CPhotometerVision
import PhotometerProtocol

/// ORB keypoints and descriptors of one photo.
public final class Keypoints: @unchecked Sendable {
  // Safe to share: immutable after detection.
  let pointer: OpaquePointer

  /// Detects up to `maxFeatures` keypoints, and up to `tiltedFeatures` more in each view of the
  /// photo as seen from the side (for a reference, so that photos taken at an angle match it);
  /// shrink big photos first (the homography still maps original pixels). With the meter's digit
  /// `window` (in the photo's original pixels), a reference's keypoints lie on the meter around
  /// it, not on the wall behind it, where its colours tell the two apart.
  public init(of image: VisionImage, maxFeatures: Int, tiltedFeatures: Int = 0, window: Rect? = nil)
    throws(VisionError)
  {
    var result: OpaquePointer?
    let scaled = window.map { window in
      [window.x, window.y, window.width, window.height].map { Int32((Double($0) * image.scale).rounded()) }
    }
    try check(
      pm_keypoints_detect_views(
        image.pointer, Int32(maxFeatures), Int32(tiltedFeatures), scaled?[0] ?? 0, scaled?[1] ?? 0, scaled?[2] ?? 0,
        scaled?[3] ?? 0, &result))
    pointer = result!
  }

  /// The keypoints ``encoded`` gave, as they were (for a cache on disk).
  public init(encoded bytes: [UInt8]) throws(VisionError) {
    var result: OpaquePointer?
    try check(pm_keypoints_decode(bytes, bytes.count, &result))
    pointer = result!
  }

  deinit {
    pm_keypoints_free(pointer)
  }

  /// The keypoints, descriptors and views as bytes that ``init(encoded:)`` reads back.
  public func encoded() throws(VisionError) -> [UInt8] {
    var bytes: UnsafeMutablePointer<UInt8>?
    var size = 0
    try check(pm_keypoints_encode(pointer, &bytes, &size))
    defer { pm_free(bytes) }
    return Array(UnsafeBufferPointer(start: bytes, count: size))
  }

  public var count: Int { Int(pm_keypoints_count(pointer)) }

  /// Where the keypoints are, in pixels of the image given (shrunk, if it was).
  public var points: [(x: Double, y: Double)] {
    var xy = [Float](repeating: 0, count: 2 * count)
    pm_keypoints_points(pointer, &xy)
    return stride(from: 0, to: xy.count, by: 2).map { (Double(xy[$0]), Double(xy[$0 + 1])) }
  }
}

/// One LSH index over the descriptors of many references, so that a query is matched against all
/// of them at once and only the best few are verified.
public final class KeypointIndex: @unchecked Sendable {
  // Safe to share: the index is read-only after it is built.
  let pointer: OpaquePointer
  /// Kept alive with the index, which verifies against them without a copy of its own.
  private let references: [Keypoints]
  public var count: Int { references.count }

  /// Indexes `references`, hashing on `threads` threads (the same index for any number); with
  /// `words`, also draws visual words from them, by which a query's shortlist is then ranked.
  public init(_ references: [Keypoints], threads: Int = 1, words: Bool = false) throws(VisionError) {
    var result: OpaquePointer?
    let pointers: [OpaquePointer?] = references.map(\.pointer)
    try check(
      pm_keypoint_index_build(pointers, Int32(references.count), Int32(threads), words ? 1 : 0, &result))
    pointer = result!
    self.references = references
  }

  deinit {
    pm_keypoint_index_free(pointer)
  }

  /// A reference the index found for a query.
  public struct Match: Sendable {
    /// Position of the reference in the index.
    public var reference: Int
    /// The weight of the query descriptors with a near neighbour in it that agree on where it is
    /// in the photo (its best pose: rotation, scale and shift).
    public var votes: Int
    /// RANSAC inliers of the verified homography, counted by how widely they spread over the
    /// reference (a 16 x 16 grid), 0 when no plausible homography was found.
    public var inliers: Int
    /// Row-major 3 x 3, reference pixels to query pixels.
    public var homography: [Double]
  }

  /// The `verify` references with most votes for the query, each checked with a homography, on
  /// `threads` threads (the same answer for any number). With words and `posed` nonzero, the
  /// first `posed` references of the votes' and the words' rankings are ranked again by how many
  /// of their keypoints that share a word with the query's agree on one pose, and the first
  /// `verify` of that ranking are checked.
  public func matches(
    for query: Keypoints, maxDistance: Int, verify: Int, posed: Int = 0, threads: Int = 1
  ) throws(VisionError) -> [Match] {
    var votes = [Int32](repeating: 0, count: count)
    var verified = [Int32](repeating: -1, count: verify)
    var inliers = [Int32](repeating: 0, count: verify)
    var homographies = [Double](repeating: 0, count: 9 * verify)
    try check(
      pm_keypoint_index_query(
        pointer, query.pointer, Int32(maxDistance), Int32(verify), Int32(posed), Int32(threads), &votes, &verified,
        &inliers, &homographies))
    return (0..<verify).compactMap { rank in
      let reference = Int(verified[rank])
      guard reference >= 0 else { return nil }
      return Match(
        reference: reference, votes: Int(votes[reference]), inliers: Int(inliers[rank]),
        homography: Array(homographies[(9 * rank)..<(9 * rank + 9)]))
    }
  }
}

/// The corners of `rect`, clockwise from the top left, mapped through a row-major 3 x 3
/// homography when there is one: a region of a reference photo in another photo.
public func corners(of rect: Rect, through homography: [Double]?) -> [(x: Float, y: Float)] {
  let (x, y, width, height) = (Double(rect.x), Double(rect.y), Double(rect.width), Double(rect.height))
  let corners: [(x: Double, y: Double)] = [(x, y), (x + width, y), (x + width, y + height), (x, y + height)]
  return corners.map { corner in
    let mapped = homography.map { project(corner, through: $0) } ?? corner
    return (Float(mapped.x), Float(mapped.y))
  }
}

/// The scale, at most 1, at which a region of `width` x `height` reference pixels whose corners
/// lie at `corners` in a photo is straightened: no finer than ``straightenedDetail`` times the
/// photo's own pixels across it, its shorter side not over ``straightenedMost`` pixels (the
/// engines read a window 32 pixels high and a dial 160 pixels square) and not under
/// ``straightenedLeast`` (a region the homography all but collapses is still cut to be read). A
/// phone's 4,000-pixel reference straightened a 548-pixel photo's dials into 9 MB of pixels that
/// the photo never held (165 ms in the dials plugin, not 2).
public func straighteningScale(_ corners: [(x: Float, y: Float)], width: Int, height: Int) -> Double {
  guard corners.count == 4, width > 0, height > 0 else { return 1 }
  let across = Double(max(distance(corners[0], corners[1]), distance(corners[3], corners[2]))) / Double(width)
  let down = Double(max(distance(corners[0], corners[3]), distance(corners[1], corners[2]))) / Double(height)
  let shorter = Double(min(width, height))
  let least = min(1, straightenedLeast / shorter)
  return max(least, min(1, straightenedMost / shorter, straightenedDetail * max(across, down)))
}

/// The most pixels a straightened region's shorter side is given.
public let straightenedMost = 256.0

/// How many output pixels a straightened region may spend on each of the photo's own.
public let straightenedDetail = 2.0

/// The fewest pixels a straightened region's shorter side is given: the reader reads a window
/// 32 pixels high.
public let straightenedLeast = 32.0

extension VisionImage {
  /// `region` of a reference photo, found in this image through `homography` (row-major 3 x 3,
  /// from the reference's pixels to the photo's as it was taken: an image decoded smaller, by
  /// ``scale``, is cut where it holds them), straightened at ``straighteningScale(_:width:height:)``
  /// of the region's size; and that scale, output pixels per reference pixel.
  public func straightened(_ region: Rect, through homography: [Double]) throws(VisionError)
    -> (image: VisionImage, scale: Double)
  {
    let decoded = Float(self.scale)
    let quad = corners(of: region, through: homography).map { (x: $0.x * decoded, y: $0.y * decoded) }
    let scale = straighteningScale(quad, width: Int(region.width), height: Int(region.height))
    let image = try straightened(
      quad, width: max(1, Int((Double(region.width) * scale).rounded())),
      height: max(1, Int((Double(region.height) * scale).rounded())))
    return (image, scale)
  }
}

/// Maps a point through a row-major 3 x 3 homography.
public func project(_ point: (x: Double, y: Double), through homography: [Double]) -> (x: Double, y: Double) {
  let w = homography[6] * point.x + homography[7] * point.y + homography[8]
  return (
    (homography[0] * point.x + homography[1] * point.y + homography[2]) / w,
    (homography[3] * point.x + homography[4] * point.y + homography[5]) / w
  )
}
