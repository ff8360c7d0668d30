import CDigitReader
import Foundation
import PhotometerVision

/// The orientation finder (an ONNX file run by OpenCV's dnn module, trained by
/// Tools/train-orientation.py): which way a whole photo's rows of digits stand, so that a photo
/// that lost its EXIF orientation (an editor, a screenshot, a messenger) is turned upright before
/// its rows are looked for. The row finders and the readers know upright digits only, and read a
/// turned row wrong and sure (docs/recognizers.md, *Photos turned without their EXIF orientation*).
public final class OrientationFinder: @unchecked Sendable {
  // Safe to share: pm_turns_find serialises the forward passes.
  private let pointer: OpaquePointer
  /// The photo's longer side as the network takes it: the row finder's.
  public static let longSide = RowFinder.longSide
  /// The share of the turns' summed chance the likeliest turn must hold more than for a photo to
  /// be turned (Tools/train-orientation.py `TRUSTED_SHARE`); below it the photo stays as it came.
  public static let trustedShare: Float = 0.5
  /// The least summed chance of the turns for a photo to be turned: one cell's worth, a row is
  /// there (Tools/train-orientation.py `LEAST_MASS`).
  public static let leastMass: Float = 1

  /// Loads `model` (ONNX).
  public init(model: URL) throws(ReaderError) {
    var result: OpaquePointer?
    guard pm_turns_load(model.path, Int32(Self.longSide), &result) == PM_READER_OK, let result else {
      throw ReaderError(
        "cannot load the orientation finder \(model.path): \(String(cString: pm_reader_last_error()))")
    }
    pointer = result
  }

  deinit {
    pm_turns_free(pointer)
  }

  /// The orientation finder that ships with the reader.
  public static func bundled() throws(ReaderError) -> OrientationFinder {
    try OrientationFinder(model: try bundledResource("orientation.onnx", "the orientation finder"))
  }

  /// Each quarter turn's chance summed over the photo's map: element k for digits standing k
  /// quarter turns clockwise.
  public func masses(in photo: VisionImage) throws(ReaderError) -> [Float] {
    var masses = [Float](repeating: 0, count: 4)
    let status = pm_turns_find(
      pointer, photo.pixels, Int32(photo.width), Int32(photo.height), Int32(photo.channels), &masses)
    guard status == PM_READER_OK else {
      throw ReaderError("the orientation finder failed: \(String(cString: pm_reader_last_error()))")
    }
    return masses
  }

  /// How many quarter turns clockwise `photo`'s digits stand: the likeliest turn when the turns'
  /// summed chance is at least ``leastMass`` and it holds more than ``trustedShare`` of it, else
  /// 0 (a photo without a clear row stays as it came).
  public func quarterTurns(of photo: VisionImage) throws(ReaderError) -> Int {
    let masses = try masses(in: photo)
    let total = masses.reduce(0, +)
    guard total >= Self.leastMass, let best = masses.indices.max(by: { masses[$0] < masses[$1] }),
      masses[best] > Self.trustedShare * total
    else { return 0 }
    return best
  }
}
