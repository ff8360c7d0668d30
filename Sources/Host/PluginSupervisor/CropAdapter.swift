import PhotometerProtocol

/// Turns an uncompressed crop (BMP), which the host sends read plugins of protocol 1.4 on, into
/// the PNG an older plugin was promised. The host gives it, since this target decodes no images;
/// without one, an older plugin is sent the crop as it is.
public typealias CropAdapter = @Sendable (Image) -> Image

extension Image {
  /// Whether the bytes are a BMP (they start with "BM").
  public var isBMP: Bool {
    data.count >= 2 && data[0] == 0x42 && data[1] == 0x4D
  }
}

extension Message {
  /// The message as a plugin of `version` takes it: a read request's BMP crop made PNG by
  /// `adapter` for a plugin older than ``ProtocolVersion/uncompressedCrops``.
  func adapted(for version: ProtocolVersion, by adapter: CropAdapter?) -> Message {
    guard let adapter, !version.includes(.uncompressedCrops), case .read(var request) = self,
      request.image.isBMP
    else { return self }
    request.image = adapter(request.image)
    return .read(request)
  }
}
