import DigitTemplates
import Foundation
import PhotometerProtocol
import PhotometerVision
import Testing

@Suite struct DigitNetworkTests {
  /// A network of one channel per layer whose weights pass the image's positive part through:
  /// each convolution keeps the centre pixel, the dense layer adds the 6 x 4 pooled maxima, and
  /// the two scores are that sum and its opposite.
  static func passThrough() throws -> DigitNetwork {
    let centre = [Float](repeating: 0, count: 4) + [1] + [Float](repeating: 0, count: 4)
    let flat = (DigitNetwork.cellWidth / 4) * (DigitNetwork.cellHeight / 4)
    let weights = centre + [0] + centre + [0] + [Float](repeating: 1, count: flat) + [0] + [1, -1] + [0, 0]
    return try DigitNetwork(shape: .init(conv1: 1, conv2: 1, hidden: 1, classes: 2), weights: weights)
  }

  @Test func scoresFollowTheLayersInTheDocumentedOrder() throws {
    let network = try Self.passThrough()
    let size = DigitNetwork.cellWidth * DigitNetwork.cellHeight
    let cells = [Float](repeating: 1, count: size) + [Float](repeating: -1, count: size)
    let flat = Float((DigitNetwork.cellWidth / 4) * (DigitNetwork.cellHeight / 4))
    #expect(try network.scores(cells) == [flat, -flat, 0, 0])
  }

  @Test func weightsThatDoNotFitTheShapeAreRefused() throws {
    #expect(throws: VisionError.self) {
      try DigitNetwork(shape: .init(conv1: 1, conv2: 1, hidden: 1, classes: 2), weights: [1, 2, 3])
    }
  }

  @Test func layersOtherThanAPowerOfTwoWideAreRefused() throws {
    // conv1 3, conv2 1, hidden 1, classes 2: the weights fit, the width does not.
    let flat = (DigitNetwork.cellWidth / 4) * (DigitNetwork.cellHeight / 4)
    let count = (9 * 3 + 3) + (9 * 3 + 1) + (flat + 1) + (2 + 2)
    #expect(throws: VisionError.self) {
      try DigitNetwork(
        shape: .init(conv1: 3, conv2: 1, hidden: 1, classes: 2), weights: [Float](repeating: 0, count: count))
    }
  }

  @Test func aCellImageHasItsBackgroundPositive() throws {
    // A dark bar on a light cell and a light bar on a dark one look alike to the network.
    func cell(ink: UInt8, paper: UInt8) throws -> [Float] {
      var pixels = [UInt8](repeating: paper, count: 30 * 45)
      for row in 5..<40 { for column in 12..<18 { pixels[row * 30 + column] = ink } }
      let image = try VisionImage(pixels: pixels, width: 30, height: 45, channels: 1)
      return try image.cellPixels(Rect(x: 0, y: 0, width: 30, height: 45))
    }
    let dark = try cell(ink: 20, paper: 230)
    let light = try cell(ink: 230, paper: 20)
    #expect(dark.count == DigitNetwork.cellWidth * DigitNetwork.cellHeight)
    #expect(dark[0] > 0 && light[0] > 0)
    #expect(zip(dark, light).allSatisfy { abs($0 - $1) < 1e-3 })
  }

  @Test func aNetworkFileHoldsSeveralNetworks() throws {
    let flat = (DigitNetwork.cellWidth / 4) * (DigitNetwork.cellHeight / 4)
    let centre = [Float](repeating: 0, count: 4) + [1] + [Float](repeating: 0, count: 4)
    func network(scale: Float) -> [Float] {
      centre + [0] + centre + [0] + [Float](repeating: 1, count: flat) + [0] + [scale, -scale] + [0, 0]
    }
    var bytes = Data("PMDN".utf8)
    func word(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { bytes.append(contentsOf: $0) } }
    word(2)
    word(2)
    for scale: Float in [1, 3] {
      let weights = network(scale: scale)
      [1, 1, 1, 2, weights.count].forEach(word)
      weights.forEach { word(Int($0.bitPattern)) }
    }
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("networks-\(UUID()).bin")
    defer { try? FileManager.default.removeItem(at: url) }
    try bytes.write(to: url)

    let networks = try DigitNetwork.networks(contentsOf: url)
    let cell = [Float](repeating: 1, count: DigitNetwork.cellWidth * DigitNetwork.cellHeight)
    let sum = Float(flat)
    #expect(try networks.map { try $0.scores(cell) } == [[sum, -sum], [3 * sum, -3 * sum]])
    try bytes.dropLast(4).write(to: url)
    #expect(throws: (any Error).self) { try DigitNetwork.networks(contentsOf: url) }
  }

  @Test func theBundledNetworksLoad() throws {
    let networks = try DigitNetwork.bundled()
    #expect(!networks.isEmpty)
    #expect(networks.allSatisfy { $0.shape.classes == 10 })
  }
}
