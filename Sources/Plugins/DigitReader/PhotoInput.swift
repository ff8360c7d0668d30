import CDigitReader
import PhotometerVision

/// A whole photo as the row and orientation finders' networks take it (`pm_photo_input_make`):
/// shrunk by area to ``RowFinder/longSide``, made once a photo and kept with it, so that both
/// finders share it (shrinking a phone's photo took longer than either network).
final class PhotoInput: @unchecked Sendable {
  // Safe to share: the networks only read it.
  let pointer: OpaquePointer

  private init(_ photo: VisionImage) throws(ReaderError) {
    var result: OpaquePointer?
    guard
      pm_photo_input_make(
        photo.pixels, Int32(photo.width), Int32(photo.height), Int32(photo.channels), Int32(RowFinder.longSide),
        &result) == PM_READER_OK, let result
    else {
      throw ReaderError("cannot shrink the photo for the row finder: \(String(cString: pm_reader_last_error()))")
    }
    pointer = result
  }

  deinit {
    pm_photo_input_free(pointer)
  }

  /// `photo`'s input, made at its first use and kept with it.
  static func of(_ photo: VisionImage) throws(ReaderError) -> PhotoInput {
    try photo.derived(PhotoInput.self) { () throws(ReaderError) in try PhotoInput(photo) }
  }
}
