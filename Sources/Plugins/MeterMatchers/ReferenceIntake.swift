import PhotometerProtocol
import PhotometerVision

/// What identify plugins do with the references of a request before matching: learn those that
/// came with their image, and list those that came without and are not known yet.
public enum ReferenceIntake {
  /// Photos are decoded with their longer side shrunk to this; matching needs no more.
  public static let maxSide = 640

  /// - Returns: the SHA-256 of references the plugin must be sent again with their image.
  public static func take(
    _ references: [Reference],
    knows: (String) -> Bool,
    learn: (String, VisionImage) throws(VisionError) -> Void
  ) throws(ErrorReply) -> [String] {
    var missing: [String] = []
    for reference in references where !knows(reference.sha256) {
      guard !reference.image.data.isEmpty else {
        missing.append(reference.sha256)
        continue
      }
      do {
        try learn(reference.sha256, try VisionImage(decoding: reference.image.data, maxSide: maxSide))
      } catch {
        throw ErrorReply(.badImage, "the reference photo of \(reference.meter) does not decode: \(error)")
      }
    }
    return missing
  }

  /// Decodes the photo to identify, or says why it cannot be.
  public static func query(_ image: Image) throws(ErrorReply) -> VisionImage {
    do {
      return try VisionImage(decoding: image.data, maxSide: maxSide)
    } catch {
      throw ErrorReply(.badImage, "the photo does not decode: \(error)")
    }
  }
}
