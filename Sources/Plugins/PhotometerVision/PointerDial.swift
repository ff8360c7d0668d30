import CPhotometerVision
import PhotometerProtocol

/// A pointer dial's reading: where its pointer stands on the 0-9 scale.
public struct PointerDial: Hashable, Sendable {
  /// In [0, 10): 4.5 is half-way from 4 to 5, whichever way the numbers run.
  public var value: Double
  /// 0 to 1: low when another mark looks as much like a pointer, or the pointer hardly shows.
  public var confidence: Double

  /// Reads the dial whose box (as drawn around it: the ring, perhaps its numbers) is `region`, in
  /// pixels of `image`; 0 at the top, the numbers running clockwise unless `counterClockwise`.
  public init(in image: VisionImage, region: Rect, counterClockwise: Bool = false) throws(VisionError) {
    var reading = pm_dial_reading()
    try check(
      pm_dial_read(
        image.pointer, region.x, region.y, region.width, region.height, counterClockwise ? 1 : 0, &reading))
    value = reading.value
    confidence = reading.confidence
  }
}
