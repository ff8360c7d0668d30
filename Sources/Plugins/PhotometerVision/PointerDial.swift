import CPhotometerVision
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

  /// Reads a dial alone (its turn in the photo from its own ring only).
  public init(in image: VisionImage, region: Rect, counterClockwise: Bool = false) throws(VisionError) {
    self = try Self.read([Placement(region: region, counterClockwise: counterClockwise)], in: image)[0]
  }

  init(value: Double, confidence: Double) {
    self.value = value
    self.confidence = confidence
  }
}
