import CPhotometerVision
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Why an OpenCV step failed.
public struct VisionError: Error, Hashable, Sendable, CustomStringConvertible {
  public enum Kind: Hashable, Sendable {
    /// The bytes are not an image OpenCV decodes.
    case badImage
    /// A size, region or count is out of range.
    case badArgument
    /// OpenCV itself failed.
    case failed
  }

  public var kind: Kind
  public var description: String

  public init(kind: Kind, description: String) {
    self.kind = kind
    self.description = description
  }

  init(_ status: pm_status) {
    switch status {
    case PM_BAD_IMAGE: kind = .badImage
    case PM_BAD_ARGUMENT: kind = .badArgument
    default: kind = .failed
    }
    let text = String(cString: pm_last_error())
    description = text.isEmpty ? "OpenCV failed" : text
  }
}

/// Runs a shim call and turns its status into a ``VisionError``.
func check(_ status: pm_status) throws(VisionError) {
  guard status == PM_OK else {
    throw VisionError(status)
  }
}

/// A decoded image (8-bit BGR or grey) owned by OpenCV.
public final class VisionImage: @unchecked Sendable {
  // Safe to share: no method mutates the pixels after creation.
  let pointer: OpaquePointer
  /// What consumers derived from the image, by the type derived (``derived(_:_:)``).
  private let derivations = Mutex<[ObjectIdentifier: any Sendable]>([:])

  init(_ pointer: OpaquePointer) {
    self.pointer = pointer
  }

  deinit {
    pm_image_free(pointer)
  }

  /// The `Value` `make` derives from this image, made at its first use and kept with the image,
  /// whose pixels never change: consumers of one derivation share it (the row and orientation
  /// finders' shrunk photo). Made outside the lock; of two made at once, the first kept is used.
  public func derived<Value: Sendable, Failure: Error>(
    _ type: Value.Type, _ make: () throws(Failure) -> Value
  ) throws(Failure) -> Value {
    let key = ObjectIdentifier(type)
    if let kept = derivations.withLock({ $0[key] }) as? Value { return kept }
    let made = try make()
    return derivations.withLock { derivations in
      if let kept = derivations[key] as? Value { return kept }
      derivations[key] = made
      return made
    }
  }

  /// Decodes `data` (EXIF orientation applied); with `maxSide`, shrinks the longer side to it.
  public convenience init(decoding data: [UInt8], maxSide: Int = 0) throws(VisionError) {
    var result: OpaquePointer?
    try check(data.withUnsafeBufferPointer { pm_image_decode($0.baseAddress, $0.count, Int32(maxSide), &result) })
    self.init(result!)
  }

  /// Decodes `data` (EXIF orientation applied), a JPEG at a half, a quarter or an eighth of its
  /// size when its longer side stays at least `leastSide`: libjpeg's scaling, a fraction of a
  /// whole decode's time, with no resizing after (``scale`` tells how much). With `mostSide`, an
  /// image still larger (one libjpeg cannot scale: PNG, BMP) is then shrunk to it.
  public convenience init(decoding data: [UInt8], reducedToAtLeast leastSide: Int, atMost mostSide: Int = 0)
    throws(VisionError)
  {
    var result: OpaquePointer?
    try check(
      data.withUnsafeBufferPointer {
        pm_image_decode_reduced($0.baseAddress, $0.count, Int32(leastSide), Int32(mostSide), &result)
      })
    self.init(result!)
  }

  /// An image of `width` x `height` grey (`channels` 1) or BGR (3) pixels, rows packed.
  public convenience init(pixels: [UInt8], width: Int, height: Int, channels: Int) throws(VisionError) {
    guard pixels.count == width * height * channels else {
      throw VisionError(
        kind: .badArgument, description: "\(pixels.count) bytes for a \(width)x\(height)x\(channels) image")
    }
    var result: OpaquePointer?
    try check(pm_image_from_pixels(pixels, Int32(width), Int32(height), Int32(channels), &result))
    self.init(result!)
  }

  public var width: Int { Int(pm_image_width(pointer)) }
  public var height: Int { Int(pm_image_height(pointer)) }
  public var channels: Int { Int(pm_image_channels(pointer)) }
  /// Decoded size over the original size: below 1 when decoding shrank the image.
  public var scale: Double { pm_image_scale(pointer) }

  /// The pixels, rows packed, `channels` bytes each.
  public var pixels: [UInt8] {
    [UInt8](unsafeUninitializedCapacity: width * height * channels) { buffer, count in
      pm_image_pixels(pointer, buffer.baseAddress)
      count = width * height * channels
    }
  }

  /// The part inside `x, y, width, height`, clipped to the image.
  public func cropped(x: Int, y: Int, width: Int, height: Int) throws(VisionError) -> VisionImage {
    var result: OpaquePointer?
    try check(pm_image_crop(pointer, Int32(x), Int32(y), Int32(width), Int32(height), &result))
    return VisionImage(result!)
  }

  /// The image turned `quarterTurns` quarter turns clockwise (negative: anticlockwise), its
  /// ``scale`` kept.
  public func turned(quarterTurns: Int) throws(VisionError) -> VisionImage {
    var result: OpaquePointer?
    try check(pm_image_turn(pointer, Int32(quarterTurns % 4), &result))
    return VisionImage(result!)
  }

  /// The quadrilateral `corners` (top-left, top-right, bottom-right, bottom-left) straightened to
  /// as many pixels as its top and right sides are long, times `scale`.
  public func straightened(_ corners: [(x: Float, y: Float)], scale: Double = 1) throws(VisionError) -> VisionImage {
    guard corners.count == 4 else {
      throw VisionError(kind: .badArgument, description: "a quadrilateral has 4 corners, not \(corners.count)")
    }
    func side(_ a: (x: Float, y: Float), _ b: (x: Float, y: Float)) -> Int {
      max(1, Int((Double(distance(a, b)) * scale).rounded()))
    }
    return try straightened(corners, width: side(corners[0], corners[1]), height: side(corners[1], corners[2]))
  }

  /// The quadrilateral `corners` (top-left, top-right, bottom-right, bottom-left) straightened to
  /// `width` x `height`.
  public func straightened(_ corners: [(x: Float, y: Float)], width: Int, height: Int) throws(VisionError)
    -> VisionImage
  {
    guard corners.count == 4 else {
      throw VisionError(kind: .badArgument, description: "a quadrilateral has 4 corners, not \(corners.count)")
    }
    let flat = corners.flatMap { [$0.x, $0.y] }
    var result: OpaquePointer?
    try check(pm_image_warp(pointer, flat, Int32(width), Int32(height), &result))
    return VisionImage(result!)
  }

  /// `start` (a row-major 3 x 3 homography from `reference`'s pixels to this image's, already
  /// close) refined so that this image through it looks most like `reference` (`pm_image_align`,
  /// OpenCV's ECC over both at 320 pixels); nil unless it converges to a correlation of at least
  /// `least`.
  public func homography(aligning reference: VisionImage, from start: [Double], least: Double) throws(VisionError)
    -> [Double]?
  {
    guard start.count == 9 else {
      throw VisionError(kind: .badArgument, description: "a homography has 9 entries, not \(start.count)")
    }
    var refined = start
    var correlation = 0.0
    try check(pm_image_align(reference.pointer, pointer, &refined, &correlation))
    return correlation > 0 && correlation >= least ? refined : nil
  }

  /// The least correlation (``homography(aligning:from:least:)``) at which a reference photo's
  /// face is taken to be in a photo: above what photos of other devices reached where three of a
  /// water meter's four dials matched (docs/recognizers.md, *A meter found by its dials*).
  public static let faceCorrelation = 0.7

  /// A region drawn on an image by ``annotated(_:)``.
  public struct Mark: Sendable {
    /// Four corners, in order.
    public var corners: [(x: Float, y: Float)]
    /// 0xRRGGBB.
    public var colour: UInt32
    public var label: String

    public init(corners: [(x: Float, y: Float)], colour: UInt32, label: String) {
      self.corners = corners
      self.colour = colour
      self.label = label
    }
  }

  /// A copy with each mark's outline drawn and its label written at its first corner.
  public func annotated(_ marks: [Mark]) throws(VisionError) -> VisionImage {
    guard marks.allSatisfy({ $0.corners.count == 4 }) else {
      throw VisionError(kind: .badArgument, description: "a mark is a quadrilateral: 4 corners")
    }
    let quads = marks.flatMap { $0.corners.flatMap { [$0.x, $0.y] } }
    let labels = marks.map { strdup($0.label) }
    defer { labels.forEach { free($0) } }
    var result: OpaquePointer?
    try check(
      labels.map { UnsafePointer($0) }.withUnsafeBufferPointer { labelBuffer in
        pm_image_annotate(pointer, quads, marks.map(\.colour), labelBuffer.baseAddress, Int32(marks.count), &result)
      })
    return VisionImage(result!)
  }

  /// The image as PNG, or as JPEG of `quality` when `jpeg`.
  public func encoded(jpeg: Bool = false, quality: Int = 90) throws(VisionError) -> [UInt8] {
    try encoded(extension: jpeg ? ".jpg" : ".png", quality: quality)
  }

  /// The image as an uncompressed BMP: written and decoded in microseconds, where a small
  /// window's PNG takes a millisecond or two each way (what the host sends read plugins).
  public func uncompressed() throws(VisionError) -> [UInt8] {
    try encoded(extension: ".bmp", quality: 0)
  }

  private func encoded(extension: String, quality: Int) throws(VisionError) -> [UInt8] {
    var bytes: UnsafeMutablePointer<UInt8>?
    var size = 0
    try check(pm_image_encode(pointer, `extension`, Int32(quality), &bytes, &size))
    defer { pm_free(bytes) }
    return [UInt8](UnsafeBufferPointer(start: bytes, count: size))
  }

  /// The dominant colour of the image's centre, as `#rrggbb`.
  public func dominantColour() throws(VisionError) -> String {
    var rgb: UInt32 = 0
    try check(pm_image_dominant_colour(pointer, &rgb))
    let hex = String(rgb, radix: 16)
    return "#" + String(repeating: "0", count: 6 - hex.count) + hex
  }

  /// Sharpness, glare and contrast of the image.
  public func quality() throws(VisionError) -> ImageQuality {
    var quality = pm_quality()
    try check(pm_image_quality(pointer, &quality))
    return ImageQuality(sharpness: quality.sharpness, glare: quality.glare, contrast: quality.contrast)
  }
}

/// What makes a photo hard to read.
public struct ImageQuality: Hashable, Sendable {
  /// Variance of the Laplacian at 32 pixels high, the sequence reader's input height.
  public var sharpness: Double
  /// Share of the middle three fifths of the rows, at 32 pixels high, in highlights: saturated
  /// (250 or more), 40 brighter than the image's darker tenth, and wider than a stroke. A white
  /// face, light digits or a white frame above them count for nothing.
  public var glare: Double
  /// Grey levels between the 5th and 95th percentile.
  public var contrast: Double
}
