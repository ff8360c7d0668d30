import Foundation
import PhotometerVision

extension DigitNetwork {
  /// The networks that ship with the plugin (built by `Tools/train-digit-network.py`).
  public static func bundled() throws -> [DigitNetwork] {
    guard let url = Bundle.module.url(forResource: "digit-network", withExtension: "bin") else {
      throw TemplateFileError("the bundled digit-network.bin is missing")
    }
    return try networks(contentsOf: url)
  }

  /// The networks of a network file, little-endian: "PMDN", version 2, the number of networks,
  /// then per network conv1, conv2, hidden, classes and the number of weights (UInt32 each) and
  /// the weights (Float32) in the order `pm_network_create` takes them. (Version 1 held one
  /// network, without the count.)
  public static func networks(contentsOf url: URL) throws -> [DigitNetwork] {
    var reader = ByteReader([UInt8](try Data(contentsOf: url)), path: url.path)
    guard try reader.bytes(4) == Array("PMDN".utf8) else {
      throw TemplateFileError("\(url.path) is not a digit network file; rebuild it with Tools/train-digit-network.py")
    }
    let count =
      switch try reader.word() {
      case 1: 1
      case 2: Int(try reader.word())
      case let version: throw TemplateFileError("\(url.path) is a digit network file of unknown version \(version)")
      }
    guard count > 0 else { throw TemplateFileError("\(url.path) holds no network") }
    let networks = try (0..<count).map { _ in
      let sizes = try (0..<5).map { _ in Int(try reader.word()) }
      let shape = Shape(conv1: sizes[0], conv2: sizes[1], hidden: sizes[2], classes: sizes[3])
      return try DigitNetwork(shape: shape, weights: try reader.floats(sizes[4]))
    }
    guard reader.atEnd else { throw TemplateFileError("\(url.path) has trailing bytes") }
    guard Set(networks.map(\.shape.classes)).count == 1 else {
      throw TemplateFileError("\(url.path) holds networks of different numbers of classes")
    }
    return networks
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
