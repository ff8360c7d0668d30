import Foundation
import PhotometerVision

extension DigitNetwork {
  /// The network that ships with the plugin (built by `Tools/train-digit-network.py`).
  public static func bundled() throws -> DigitNetwork {
    guard let url = Bundle.module.url(forResource: "digit-network", withExtension: "bin") else {
      throw TemplateFileError("the bundled digit-network.bin is missing")
    }
    return try DigitNetwork(contentsOf: url)
  }

  /// A network file, little-endian: "PMDN", version 1, then conv1, conv2, hidden, classes and the
  /// number of weights (UInt32 each), then the weights (Float32) in the order `pm_network_create`
  /// takes them.
  public convenience init(contentsOf url: URL) throws {
    var reader = ByteReader([UInt8](try Data(contentsOf: url)), path: url.path)
    guard try reader.bytes(4) == Array("PMDN".utf8), try reader.word() == 1 else {
      throw TemplateFileError(
        "\(url.path) is not a version 1 digit network file; rebuild it with Tools/train-digit-network.py")
    }
    let sizes = try (0..<5).map { _ in Int(try reader.word()) }
    let weights = try reader.floats(sizes[4])
    guard reader.atEnd else { throw TemplateFileError("\(url.path) has trailing bytes") }
    try self.init(shape: Shape(conv1: sizes[0], conv2: sizes[1], hidden: sizes[2], classes: sizes[3]), weights: weights)
  }
}

/// The cells a network is trained on, as `photometer-digits train --cells` writes them for
/// `Tools/train-digit-network.py`: little-endian "PMDC", version 1, count, width, height (UInt32
/// each), the labels (UInt16, in tenths), the images (Float32, row-major, ``DigitNetwork/cellWidth``
/// x ``DigitNetwork/cellHeight`` each).
public enum CellImageFile {
  public static func write(labels: [UInt16], images: [Float], to url: URL) throws {
    var writer = ByteWriter(magic: "PMDC")
    for value in [1, labels.count, DigitNetwork.cellWidth, DigitNetwork.cellHeight] { writer.word(UInt32(value)) }
    labels.forEach { writer.half($0) }
    images.forEach { writer.word($0.bitPattern) }
    try Data(writer.bytes).write(to: url, options: .atomic)
  }
}
