import PhotometerProtocol
import PhotometerVision
import PhotometerVoting

extension ReadPipeline {
  /// Where the meter's reference is in the photo, as far as this read has looked.
  enum Location {
    case notSearched
    /// The homography from the reference to the photo, nil when the meter was not found (either
    /// already flagged).
    case searched([Double]?)
  }

  /// The dials to read: the meter's, else the request's.
  static func dials(of request: ReadRequest, meter: Meter?) -> [Dial] {
    if let meter, !meter.dials.isEmpty {
      return meter.dials
    }
    return request.dials
  }

  /// Reads `dials` and joins them to the wheels in `result` (``DialChain``): the value gains the
  /// dials' digits (the caller adds their decimal places), `digits` and `dials` their symbols,
  /// `engines` the dials plugins' answers. A registered meter's dials are cut through the
  /// homography from its reference, as its digit window is; a request's are in the photo.
  /// Returns whether the dials were joined; if not, `dials-not-read` is flagged.
  func joinDials(
    _ dials: [Dial], photo: VisionImage, request: ReadRequest, context: Context, location: Location,
    result: inout ReadResult, flags: inout [ReadFlag]
  ) async throws(PipelineError) -> Bool {
    var homography: [Double]?
    if let meter = context.meter, !meter.dials.isEmpty {
      switch location {
      case .searched(let found): homography = found
      case .notSearched:
        homography = try await located(meter, in: photo, request: request, context: context, flags: &flags)
      }
    }
    // Without a location the regions are the reference's pixels, taken as the photo's as taken.
    let (area, shifted) = try Self.dialArea(
      dials, in: homography == nil ? Self.inFull(photo, of: request.image) : photo, homography: homography)
    let image = try Self.forEngines(area, name: "dials.bmp")
    // Without a dials plugin (none configured, all failing) the wheels' value stands, flagged.
    let answers: [EngineAnswer]
    do {
      answers = try await plugins.dialAnswers(
        ReadRequest(
          image: image, meter: context.meter?.name ?? "", dials: shifted, shadows: request.shadows))
    } catch {
      flags.append(.dialsNotRead)
      return false
    }
    result.engines += answers
    let best = answers.compactMap { answer -> EngineReading? in
      guard answer.voted, case .success(let reading) = answer.outcome, reading.symbols.count == dials.count else {
        return nil
      }
      return reading
    }.max { $0.confidence < $1.confidence }
    guard let best,
      let chain = DialChain(
        wheels: result.digits, wheelConfidence: result.confidence,
        dials: best.symbols.map { DialChain.Pointer(position: $0.position, confidence: $0.confidence) })
    else {
      flags.append(.dialsNotRead)
      return false
    }
    let boxed = zip(best.symbols, dials).map { symbol, dial in
      var symbol = symbol
      symbol.box = dial.region
      return symbol
    }
    result.dials = Self.apply(chain, finer: boxed, to: &result)
    return true
  }

  /// An extended counter's value: the voted wheels with the last wheel's roll as one more decimal
  /// (``DialChain/extending(wheels:wheelConfidence:)``). False when the wheels are no digits.
  static func extendWheels(_ result: inout ReadResult) -> Bool {
    guard let last = result.digits.last,
      let chain = DialChain.extending(wheels: result.digits, wheelConfidence: result.confidence)
    else {
      return false
    }
    _ = apply(chain, finer: [Symbol(text: "", confidence: last.confidence)], to: &result)
    return true
  }

  /// `result` as `chain` decided it: the wheels' symbols with the chain's digits, then `finer`
  /// (a symbol a place past the wheels) with theirs; the value and the confidence the chain's.
  /// Returns the finer places' symbols as they now read.
  private static func apply(_ chain: DialChain, finer: [Symbol], to result: inout ReadResult) -> [Symbol] {
    func reading(_ symbols: [Symbol], as digits: [String]) -> [Symbol] {
      zip(symbols, digits).map { symbol, digit in
        var symbol = symbol
        symbol.text = digit
        return symbol
      }
    }
    let places = reading(finer, as: chain.dialDigits.map(String.init))
    result.digits = reading(result.digits, as: chain.wheels.map(String.init)) + places
    result.value = chain.wheels + chain.dialDigits.map(String.init).joined()
    result.confidence = chain.confidence
    return places
  }

  /// The part of the photo holding every dial, with a margin: straightened into the reference's
  /// frame through `homography` when there is one
  /// (``PhotometerVision/VisionImage/straightened(_:through:)``, no finer than the photo holds
  /// it), else cut as it is; and the dials' regions in it.
  static func dialArea(_ dials: [Dial], in photo: VisionImage, homography: [Double]?) throws(PipelineError)
    -> (VisionImage, [Dial])
  {
    // In Int: a request's region may lie anywhere Int32 reaches, and its far edge past it.
    let left = dials.map { Int($0.region.x) }.min() ?? 0
    let top = dials.map { Int($0.region.y) }.min() ?? 0
    let right = dials.map { Int($0.region.x) + Int($0.region.width) }.max() ?? 0
    let bottom = dials.map { Int($0.region.y) + Int($0.region.height) }.max() ?? 0
    let margin = max(4, (right - left) / 20)
    var (x, y) = (max(0, left - margin), max(0, top - margin))
    let (width, height) = (right + margin - x, bottom + margin - y)
    let area: VisionImage
    var scale = 1.0
    do {
      if let homography {
        let box = Rect(x: Int32(x), y: Int32(y), width: Int32(width), height: Int32(height))
        (area, scale) = try photo.straightened(box, through: homography)
      } else {
        (x, y) = (min(x, max(0, photo.width - 1)), min(y, max(0, photo.height - 1)))
        area = try photo.cropped(x: x, y: y, width: width, height: height)
      }
    } catch {
      throw .windowNotCut(error)
    }
    let shifted = dials.map { dial in
      var dial = dial
      func scaled(_ value: Int) -> Int32 { Int32((Double(value) * scale).rounded()) }
      dial.region = Rect(
        x: scaled(Int(dial.region.x) - x), y: scaled(Int(dial.region.y) - y),
        width: max(1, scaled(Int(dial.region.width))),
        height: max(1, scaled(Int(dial.region.height))))
      return dial
    }
    return (area, shifted)
  }
}
