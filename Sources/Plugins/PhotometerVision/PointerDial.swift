import CPhotometerVision
import Foundation
import PhotometerProtocol

/// A pointer dial's reading: where its pointer stands on the 0-9 scale.
public struct PointerDial: Hashable, Sendable {
  /// Where a dial is in a photo and which way its numbers run.
  public struct Placement: Hashable, Sendable {
    /// The box drawn around the dial (the ring, perhaps its numbers), in pixels of the photo.
    public var region: Rect
    /// The numbers run anticlockwise; 0 is at the top either way.
    public var counterClockwise: Bool

    public init(region: Rect, counterClockwise: Bool = false) {
      self.region = region
      self.counterClockwise = counterClockwise
    }
  }

  /// In [0, 10): 4.5 is half-way from 4 to 5, whichever way the numbers run.
  public var value: Double
  /// 0 to 1: low when another mark looks as much like a pointer, or the pointer hardly shows.
  public var confidence: Double

  /// Reads one meter's dials, in order. A photo turns a meter's dials alike, so how far they are
  /// turned is measured on all of them together: pass a meter's dials in one call, not one by one.
  public static func read(_ dials: [Placement], in image: VisionImage) throws(VisionError) -> [PointerDial] {
    let regions = dials.map {
      pm_dial_region(
        x: $0.region.x, y: $0.region.y, width: $0.region.width, height: $0.region.height,
        counter_clockwise: $0.counterClockwise ? 1 : 0)
    }
    var readings = [pm_dial_reading](repeating: pm_dial_reading(), count: dials.count)
    try check(pm_dials_read(image.pointer, regions, Int32(regions.count), &readings))
    return readings.map { PointerDial(value: $0.value, confidence: $0.confidence) }
  }

  /// The homography from a meter's reference photo to `image` found by the meter's dials, as
  /// `dials` lie in the reference: the similarity that puts them on circles found in `image`
  /// (`pm_dials_locate`), refined with the whole face when the `reference` photo is given
  /// (`pm_image_align`), which takes the tilt out, kept only if it moves no dial by more than a
  /// third of its radius. For a photo the identify plugins cannot locate the meter in (blurred, a
  /// plain face with few keypoints). `expectedScale` is the photo's pixels per reference pixel as
  /// their sizes say. Nil when fewer than three dials (two of two) are found where the others put
  /// them, or when not all are and the face does not agree (``VisionImage/faceCorrelation``):
  /// three circles in a row are found in many photos of other things.
  public static func locate(
    _ dials: [Rect], in image: VisionImage, reference: VisionImage? = nil, expectedScale: Double = 1
  ) throws(VisionError) -> [Double]? {
    let circles = dials.map { region in
      pm_dial_circle(
        x: Double(region.x) + Double(region.width) / 2, y: Double(region.y) + Double(region.height) / 2,
        radius: Double(min(region.width, region.height)) / 2)
    }
    var similarity = [Double](repeating: 0, count: 9)
    var matched: Int32 = 0
    try check(pm_dials_locate(image.pointer, circles, Int32(circles.count), expectedScale, &similarity, &matched))
    guard matched > 0 else { return nil }
    let all = Int(matched) == circles.count
    guard let reference else { return all ? similarity : nil }
    let refined = try image.homography(
      aligning: reference, from: similarity, least: all ? 0 : VisionImage.faceCorrelation)
    if let refined, agree(similarity, refined, on: circles, within: 1.0 / 3) {
      return refined
    }
    return all ? similarity : nil
  }

  /// Whether homographies `a` and `b` put every circle's centre within `share` of its radius (as
  /// `a` scales it) of each other.
  private static func agree(_ a: [Double], _ b: [Double], on circles: [pm_dial_circle], within share: Double) -> Bool {
    let scale = hypot(a[0], a[3])
    return circles.allSatisfy { circle in
      let (p, q) = (project((circle.x, circle.y), through: a), project((circle.x, circle.y), through: b))
      return hypot(p.x - q.x, p.y - q.y) <= share * circle.radius * scale
    }
  }

  /// Reads a dial alone (its turn in the photo from its own ring only).
  public init(in image: VisionImage, region: Rect, counterClockwise: Bool = false) throws(VisionError) {
    self = try Self.read([Placement(region: region, counterClockwise: counterClockwise)], in: image)[0]
  }

  init(value: Double, confidence: Double) {
    self.value = value
    self.confidence = confidence
  }
}
