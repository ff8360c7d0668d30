import CDigitReader
import Foundation
import PhotometerVision

/// The digit cell classifier (an ONNX file run by OpenCV's dnn module, trained by
/// Tools/train-digit-classifier.py): one digit's cell of a window to a probability for each
/// digit 0-9. It gives the sequence reader a second opinion on every digit it places.
public final class CellClassifier: @unchecked Sendable {
  // Safe to share: pm_cells_run serialises the forward passes.
  private let pointer: OpaquePointer
  /// The size cells are scaled to, as the classifier was trained.
  public static let height = 32
  public static let width = 20

  /// Loads `model` (ONNX).
  public init(model: URL) throws(ReaderError) {
    var result: OpaquePointer?
    guard pm_cells_load(model.path, Int32(Self.height), Int32(Self.width), &result) == PM_READER_OK, let result else {
      throw ReaderError(
        "cannot load the digit cell classifier \(model.path): \(String(cString: pm_reader_last_error()))")
    }
    pointer = result
  }

  deinit {
    pm_cells_free(pointer)
  }

  /// The classifier that ships with the plugin.
  public static func bundled() throws(ReaderError) -> CellClassifier {
    try CellClassifier(model: try bundledResource("digit-cells.onnx", "the digit cell classifier"))
  }

  /// Each cell's digit probabilities (softmax of the classifier's scores); a cell is a span of
  /// the image's columns over its full height, and may run past its edges.
  public func probabilities(_ image: VisionImage, cells: [Range<Int>]) throws(ReaderError) -> [[Double]] {
    try opinions(image, cells: cells, features: false).map(\.probabilities)
  }

  /// What the classifier makes of one cell: its digit probabilities and, when asked for and the
  /// classifier has them (Tools/digitreader/features.py), its penultimate layer's values.
  public struct Opinion: Sendable {
    public var probabilities: [Double]
    public var features: [Float]?
  }

  /// Each cell's ``Opinion``, with the features when `features` is true.
  public func opinions(_ image: VisionImage, cells: [Range<Int>], features: Bool) throws(ReaderError) -> [Opinion] {
    guard !cells.isEmpty else { return [] }
    let lefts = cells.map { Int32(clamping: $0.lowerBound) }
    let rights = cells.map { Int32(clamping: $0.upperBound) }
    var scores: UnsafeMutablePointer<Float>?
    var classes: Int32 = 0
    var layer: UnsafeMutablePointer<Float>?
    var layerWidth: Int32 = 0
    func run(
      _ layerOut: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>?, _ widthOut: UnsafeMutablePointer<Int32>?
    ) -> pm_reader_status {
      pm_cells_run(
        pointer, image.pixels, Int32(image.width), Int32(image.height), Int32(image.channels), lefts, rights,
        Int32(cells.count), &scores, &classes, layerOut, widthOut)
    }
    let status = features ? run(&layer, &layerWidth) : run(nil, nil)
    defer { pm_reader_scores_free(layer) }
    guard status == PM_READER_OK, let scores else {
      throw ReaderError("the digit cell classifier failed: \(String(cString: pm_reader_last_error()))")
    }
    defer { pm_reader_scores_free(scores) }
    let width = Int(classes)
    let featureWidth = Int(layerWidth)
    return cells.indices.map { row in
      Opinion(
        probabilities: softmax((0..<width).map { Double(scores[row * width + $0]) }),
        features: layer.map { layer in (0..<featureWidth).map { layer[row * featureWidth + $0] } })
    }
  }
}
