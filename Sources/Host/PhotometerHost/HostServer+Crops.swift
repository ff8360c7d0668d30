import PhotometerProtocol
import PhotometerVision
import PluginSupervisor

extension HostServer {
  /// What the host's plugin set turns a BMP crop into for a plugin older than protocol 1.4: the
  /// same pixels as PNG (``PluginSupervisor/CropAdapter``). An image that does not decode goes as
  /// it is, for the plugin to refuse.
  public static let adaptCrop: CropAdapter = { image in
    guard let decoded = try? VisionImage(decoding: image.data), let png = try? decoded.encoded() else {
      return image
    }
    return Image(data: png, name: image.name)
  }
}
