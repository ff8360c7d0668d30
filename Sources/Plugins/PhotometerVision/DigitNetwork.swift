import CPhotometerVision

/// A small convolutional network that scores each class of a digit cell (see
/// `pm_network_create` for its layers and the order of its weights).
public final class DigitNetwork: @unchecked Sendable {
  // Safe to share: classifying does not change the network.
  let pointer: OpaquePointer
  public let shape: Shape

  /// The layer sizes.
  public struct Shape: Hashable, Sendable {
    public var conv1: Int
    public var conv2: Int
    public var hidden: Int
    public var classes: Int

    public init(conv1: Int, conv2: Int, hidden: Int, classes: Int) {
      self.conv1 = conv1
      self.conv2 = conv2
      self.hidden = hidden
      self.classes = classes
    }
  }

  /// The cell images the network reads (``VisionImage/cellPixels(_:)``) are this many pixels
  /// wide and high.
  public static let cellWidth = Int(pm_cell_width())
  public static let cellHeight = Int(pm_cell_height())

  public init(shape: Shape, weights: [Float]) throws(VisionError) {
    var result: OpaquePointer?
    try check(
      pm_network_create(
        Int32(shape.conv1), Int32(shape.conv2), Int32(shape.hidden), Int32(shape.classes), weights, weights.count,
        &result))
    pointer = result!
    self.shape = shape
  }

  deinit {
    pm_network_free(pointer)
  }

  /// The class scores (logits) of each cell image in `cells` (rows of ``cellWidth`` x
  /// ``cellHeight`` floats): ``Shape/classes`` floats per cell.
  public func scores(_ cells: [Float]) throws(VisionError) -> [Float] {
    let count = cells.count / (Self.cellWidth * Self.cellHeight)
    var status = PM_OK
    let scores = [Float](unsafeUninitializedCapacity: count * shape.classes) { buffer, initialized in
      status = pm_network_classify(pointer, cells, Int32(count), buffer.baseAddress)
      initialized = count * shape.classes
    }
    try check(status)
    return scores
  }
}
