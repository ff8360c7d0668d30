import PhotometerVision

extension VisionImage {
  /// The whole image stretched to `width` x `height`: a window or a photo enlarged as a phone's
  /// crop or a phone's photo is.
  func resized(width: Int, height: Int) throws -> VisionImage {
    let (right, bottom) = (Float(self.width), Float(self.height))
    return try straightened([(0, 0), (right, 0), (right, bottom), (0, bottom)], width: width, height: height)
  }
}
