import CTesseract
import PhotometerProtocol
import PhotometerVision

#if canImport(Glibc)
  import Glibc
#endif

/// Tesseract set up for meter digits: digits and the decimal separator only, one line, no
/// dictionaries, fed the crop grey, dark on light and upscaled, with no border. A crop inside a
/// dark frame (a wheel housing, a bezel) is read twice, as it is and as the digit window inside
/// the frame, and the surer reading is kept: it is the only set-up that reads as many as the
/// `tesseract` command line on every set (docs/recognizers.md). No white border: around a
/// housing's dark edge Tesseract reads it as a box.
public final class TesseractEngine {
  /// Prepared crops are this many pixels high (Tesseract reads text 20 to 40 px high best).
  public static let lineHeight = 48

  private let api: OpaquePointer
  public let version: String

  /// - Parameter dataPath: the tessdata folder, or `nil` for the library's default.
  public init(language: String = "eng", dataPath: String? = nil) throws(ErrorReply) {
    guard let api = TessBaseAPICreate() else {
      throw ErrorReply(.internal, "Tesseract did not start")
    }
    guard TessBaseAPIInit3(api, dataPath, language) == 0 else {
      TessBaseAPIDelete(api)
      throw ErrorReply(
        .internal, "Tesseract has no '\(language)' language data; install tesseract-ocr-\(language)")
    }
    TessBaseAPISetVariable(api, "tessedit_char_whitelist", "0123456789.")
    TessBaseAPISetVariable(api, "load_system_dawg", "0")
    TessBaseAPISetVariable(api, "load_freq_dawg", "0")
    TessBaseAPISetVariable(api, "classify_bln_numeric_mode", "1")
    TessBaseAPISetPageSegMode(api, PSM_SINGLE_LINE)
    self.api = api
    version = String(cString: TessVersion())
  }

  deinit {
    TessBaseAPIEnd(api)
    TessBaseAPIDelete(api)
  }

  /// Reads the digits of `image` (already cropped to the meter's digit region). Boxes are in the crop's
  /// pixels.
  ///
  /// - Parameter calibrated: whether confidences are beliefs (``TesseractCalibration``) or as
  ///   Tesseract gives them (what the calibration is fitted on).
  public func read(_ image: VisionImage, calibrated: Bool = true) throws(VisionError) -> EngineReading {
    var reading = try recognize(image, at: (0, 0))
    let window = try image.digitWindow()
    if window.width < image.width || window.height < image.height {
      // Neither read is better everywhere (see the type's note): the surer one is kept.
      let inside = try recognize(try image.cropped(window), at: (window.x, window.y))
      if inside.confidence >= reading.confidence {
        reading = inside
      }
    }
    return calibrated ? TesseractCalibration.apply(to: reading) : reading
  }

  /// Reads `image`, a part of the crop whose top left corner is `origin` in the crop's pixels.
  private func recognize(_ image: VisionImage, at origin: (x: Int32, y: Int32)) throws(VisionError) -> EngineReading {
    let prepared = try image.preparedForDigits(height: Self.lineHeight, border: 0)
    let scale = Double(prepared.height) / Double(image.height)
    let pixels = prepared.pixels
    pixels.withUnsafeBufferPointer { buffer in
      TessBaseAPISetImage(
        api, buffer.baseAddress, Int32(prepared.width), Int32(prepared.height), 1, Int32(prepared.width))
    }
    TessBaseAPISetSourceResolution(api, 300)
    defer { TessBaseAPIClear(api) }
    guard TessBaseAPIRecognize(api, nil) == 0, let iterator = TessBaseAPIGetIterator(api) else {
      return EngineReading(text: "", confidence: 0)
    }
    defer { TessResultIteratorDelete(iterator) }
    var symbols: [Symbol] = []
    repeat {
      guard let text = TessResultIteratorGetUTF8Text(iterator, RIL_SYMBOL) else { continue }
      defer { TessDeleteText(text) }
      let confidence = Double(TessResultIteratorConfidence(iterator, RIL_SYMBOL)) / 100
      var left: Int32 = 0, top: Int32 = 0, right: Int32 = 0, bottom: Int32 = 0
      TessPageIteratorBoundingBox(TessResultIteratorGetPageIterator(iterator), RIL_SYMBOL, &left, &top, &right, &bottom)
      let box = Rect(
        x: origin.x + Int32((Double(left) / scale).rounded()),
        y: origin.y + Int32((Double(top) / scale).rounded()),
        width: Int32((Double(right - left) / scale).rounded()), height: Int32((Double(bottom - top) / scale).rounded()))
      symbols.append(
        Symbol(text: String(cString: text), confidence: confidence, box: box, alternatives: alternatives(iterator)))
    } while TessResultIteratorNext(iterator, RIL_SYMBOL) != 0
    let text = symbols.map(\.text).joined()
    // The line is as trustworthy as its weakest symbol.
    let confidence = symbols.map(\.confidence).min() ?? 0
    return EngineReading(text: text, confidence: confidence, symbols: symbols)
  }

  private func alternatives(_ iterator: OpaquePointer) -> [Alternative] {
    guard let choices = TessResultIteratorGetChoiceIterator(iterator) else { return [] }
    defer { TessChoiceIteratorDelete(choices) }
    var result: [Alternative] = []
    repeat {
      if let text = TessChoiceIteratorGetUTF8Text(choices) {
        result.append(
          Alternative(text: String(cString: text), confidence: Double(TessChoiceIteratorConfidence(choices)) / 100))
      }
    } while TessChoiceIteratorNext(choices) != 0
    // The first choice is the symbol itself.
    return Array(result.dropFirst())
  }
}

extension TesseractEngine {
  /// Runs this program again with Tesseract's OpenMP held to one thread, unless
  /// `OMP_THREAD_LIMIT` is already set; call it first thing in `main`.
  ///
  /// Tesseract's OpenMP threads busy-wait between its many small parallel loops: on this 2-core
  /// machine a meter strip took 95-120 ms to read instead of 9 (photometer-benchmark-read, wheels,
  /// same answers), and the spinning starved every other process. libgomp reads the variable only
  /// when it is loaded, before `main`, hence the `execv` of `/proc/self/exe` with the same
  /// arguments (same process, same pipes). Should `execv` fail, the program goes on as it is.
  public static func runSingleThreaded() {
    guard getenv("OMP_THREAD_LIMIT") == nil else { return }
    setenv("OMP_THREAD_LIMIT", "1", 1)
    execv("/proc/self/exe", CommandLine.unsafeArgv)
  }
}

/// Turns Tesseract's symbol confidence into P(the digit is right): piecewise linear through
/// knots fitted by Tools/calibrate-read.py on the read evaluation's sets of other seeds than the
/// README's (seven-segment, wheels, real strips and single real digits; each digit Tesseract read
/// aligned with the true digits as the vote aligns readings). Tesseract's confidence is not even
/// monotone on meter digits: digits it gives under 0.3 are right about 9 times in 10, those it
/// gives 0.8 to 0.95 two times in three. Its alternatives keep their raw confidence (Tesseract
/// gives almost none with the digits whitelist); a reading's confidence is its weakest symbol's.
public enum TesseractCalibration {
  /// (raw confidence, belief), raw increasing from 0 to 1.
  public static let knots: [(raw: Double, belief: Double)] = [
    (0.000, 0.926), (0.204, 0.926), (0.354, 0.894), (0.486, 0.832), (0.731, 0.738), (0.881, 0.704),
    (0.932, 0.685), (0.960, 0.716), (0.978, 0.822), (0.989, 0.926), (0.994, 0.949), (1.000, 0.949),
  ]

  public static func belief(_ raw: Double) -> Double {
    let raw = raw.isNaN ? 0 : min(max(raw, 0), 1)
    guard let upper = knots.firstIndex(where: { $0.raw >= raw }), upper > 0 else { return knots[0].belief }
    let (low, high) = (knots[upper - 1], knots[upper])
    return low.belief + (high.belief - low.belief) * (raw - low.raw) / max(high.raw - low.raw, 1e-9)
  }

  /// The reading with each symbol's confidence a belief, and the reading's its weakest symbol's.
  public static func apply(to reading: EngineReading) -> EngineReading {
    var calibrated = reading
    for index in calibrated.symbols.indices {
      calibrated.symbols[index].confidence = belief(calibrated.symbols[index].confidence)
    }
    calibrated.confidence = calibrated.symbols.map(\.confidence).min() ?? 0
    return calibrated
  }
}
