import PhotometerProtocol

/// The digit window of a read request: the image decoded (EXIF orientation applied) and cut to
/// the request's ROI, or the whole image.
public enum DigitCrop {
  public static func decode(_ request: ReadRequest) throws(ErrorReply) -> VisionImage {
    let image: VisionImage
    do {
      image = try VisionImage(decoding: request.image.data)
    } catch {
      throw ErrorReply(.badImage, "the photo does not decode: \(error)")
    }
    guard let roi = request.roi else {
      return image
    }
    do {
      return try image.cropped(roi)
    } catch {
      throw ErrorReply(.invalidRequest, "the region \(roi) is outside the \(image.width)x\(image.height) photo")
    }
  }
}

extension VisionImage {
  /// The part inside `roi`, clipped to the image.
  public func cropped(_ roi: Rect) throws(VisionError) -> VisionImage {
    try cropped(x: Int(roi.x), y: Int(roi.y), width: Int(roi.width), height: Int(roi.height))
  }
}
