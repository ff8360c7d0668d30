import CDigitReader
import Foundation
import PhotometerVision

/// Why the reader's network could not be loaded or run.
public struct ReaderError: Error, Hashable, Sendable, CustomStringConvertible {
  public var description: String

  public init(_ description: String) {
    self.description = description
  }
}

/// The file `name` ("digit-reader.onnx") of the reader's resources; an error that names it,
/// `what` it is and the fix when the build left it out.
func bundledResource(_ name: String, _ what: String) throws(ReaderError) -> URL {
  let (stem, suffix) = (name.prefix { $0 != "." }, name.drop { $0 != "." }.dropFirst())
  guard let url = Bundle.module.url(forResource: String(stem), withExtension: String(suffix)) else {
    throw ReaderError("\(what) is not beside the reader (\(name)): build the package again with swift build")
  }
  return url
}

/// The reader's network (an ONNX file run by OpenCV's dnn module) and the settings it was
/// trained with (`digit-reader.json`, written by Tools/train-digit-reader.py).
public final class ReaderNetwork: @unchecked Sendable {
  // Safe to share: pm_reader_run serialises the forward passes.
  private let pointer: OpaquePointer
  public let settings: Settings

  /// What the network was trained with.
  public struct Settings: Codable, Hashable, Sendable {
    /// Windows are scaled to this many pixels high.
    public var height: Int
    /// Input pixels per output column.
    public var stride: Int
    /// The character of each CTC class, the blank first.
    public var classes: String
    /// The softmax temperature that makes a character's probability its chance of being right,
    /// fitted on meterdigits' development set-ups.
    public var temperature: Double
    /// How far right of a digit's middle the network's surest column for it lies, in pitches,
    /// fitted on the development windows: each training's own, as another seed's peaks lie
    /// elsewhere. Files written before it was fitted hold none: their network's is 0.12.
    public var peakLead: Double

    enum CodingKeys: String, CodingKey {
      case height, stride, classes, temperature
      case peakLead = "peak_lead"
    }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      height = try container.decode(Int.self, forKey: .height)
      stride = try container.decode(Int.self, forKey: .stride)
      classes = try container.decode(String.self, forKey: .classes)
      temperature = try container.decode(Double.self, forKey: .temperature)
      peakLead = try container.decodeIfPresent(Double.self, forKey: .peakLead) ?? 0.12
    }
  }

  /// Loads `model` (ONNX) with the settings in `settings` (JSON).
  public init(model: URL, settings: URL) throws(ReaderError) {
    guard FileManager.default.fileExists(atPath: model.path) else {
      throw ReaderError("no reader network at \(model.path): give an ONNX file from Tools/train-digit-reader.py")
    }
    do {
      self.settings = try JSONDecoder().decode(Settings.self, from: Data(contentsOf: settings))
    } catch {
      throw ReaderError("cannot read the reader's settings \(settings.path): \(error)")
    }
    var result: OpaquePointer?
    let loaded = pm_reader_load(
      model.path, Int32(self.settings.height), Int32(self.settings.stride), &result)
    guard loaded == PM_READER_OK, let result else {
      throw ReaderError(
        "cannot load the reader's network \(model.path): \(String(cString: pm_reader_last_error()))")
    }
    pointer = result
  }

  /// Loads `model` with the settings Tools/train-digit-reader.py writes beside it (`NAME.json`).
  public convenience init(model: URL) throws(ReaderError) {
    try self.init(model: model, settings: model.deletingPathExtension().appendingPathExtension("json"))
  }

  deinit {
    pm_reader_free(pointer)
  }

  /// The threads the reader's process gives OpenCV (its dnn module, and every other OpenCV
  /// function in the process; 1: all on the calling thread). The reader plugin's option `threads`
  /// sets it, ``defaultThreads`` unless set.
  public static func useThreads(_ threads: Int) {
    pm_reader_set_threads(Int32(clamping: threads))
  }

  /// Two: on 2 cores a strip takes about two thirds of the time, and a batch through the host
  /// reads as many a second with pools of one or two plugin processes (docs/recognizers.md,
  /// *Where a strip's time goes*).
  public static let defaultThreads = 2

  /// A network and its settings that ship with the plugin, `name`.onnx and `name`.json: by
  /// default the first of the panel's (``ReaderPanel/bundledModels``).
  public static func bundled(_ name: String = ReaderPanel.bundledModels[0]) throws(ReaderError) -> ReaderNetwork {
    try ReaderNetwork(
      model: try bundledResource("\(name).onnx", "the digit reader's network"),
      settings: try bundledResource("\(name).json", "the digit reader's settings"))
  }

  /// The network's output for a window: per column, a score for each class, then the wheel
  /// position as (cos, sin) of 2 pi value / 10.
  public func scores(_ image: VisionImage) throws(ReaderError) -> ColumnScores {
    let pixels = image.pixels
    var scores: UnsafeMutablePointer<Float>?
    var channels: Int32 = 0
    var columns: Int32 = 0
    let status = pm_reader_run(
      pointer, pixels, Int32(image.width), Int32(image.height), Int32(image.channels), &scores,
      &channels, &columns)
    guard status == PM_READER_OK, let scores else {
      throw ReaderError("the reader's network failed: \(String(cString: pm_reader_last_error()))")
    }
    defer { pm_reader_scores_free(scores) }
    let values = Array(UnsafeBufferPointer(start: scores, count: Int(channels) * Int(columns)))
    return ColumnScores(channels: Int(channels), columns: Int(columns), values: values)
  }
}

/// The network's output for one window: `channels` rows of `columns` floats.
public struct ColumnScores: Sendable {
  public var channels: Int
  public var columns: Int
  public var values: [Float]

  public init(channels: Int, columns: Int, values: [Float]) {
    self.channels = channels
    self.columns = columns
    self.values = values
  }

  /// Per column, the softmax of the first `classes` channels at `temperature`.
  public func probabilities(classes: Int, temperature: Double) -> [[Double]] {
    (0..<columns).map { column in
      softmax((0..<classes).map { Double(values[$0 * columns + column]) / temperature })
    }
  }

  /// The wheel position the channels after the first `classes` give at `column`, as (cos, sin).
  public func wheel(classes: Int, column: Int) -> (cos: Double, sin: Double) {
    (Double(values[classes * columns + column]), Double(values[(classes + 1) * columns + column]))
  }
}

/// exp of each score over their sum (shifted by the largest, so that none overflows).
func softmax(_ scores: [Double]) -> [Double] {
  let top = scores.max() ?? 0
  let weights = scores.map { exp($0 - top) }
  let total = weights.reduce(0, +)
  return weights.map { $0 / total }
}
