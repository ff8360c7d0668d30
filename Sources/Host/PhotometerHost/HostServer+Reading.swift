import Foundation
import PhotometerImages
import PhotometerProtocol
import PhotometerVision
import PhotometerVoting

extension HostServer {
  /// The reading pipeline: find the meter (given, or identified when the reading is to be saved),
  /// cut its digit window (request ROI; the meter's ROI, mapped through the identify homography
  /// when the photo is of the whole meter; else the whole image), let every read engine read the
  /// crop, vote per character, check the value against the meter's history and settings, and
  /// store it when asked. Frames of a stream also say whether the value has converged.
  func read(_ request: ReadRequest) async throws(ErrorReply) -> ReadResult {
    let (meter, identified) = try await meterForReading(request)
    let digits = meter.map { UInt32($0.digits) } ?? request.digits
    let decimals = meter.map { UInt32($0.decimals) } ?? request.decimals
    var flags: [ReadFlag] = []
    var result: ReadResult
    if let whole = wholePhoto(request, meter: meter) {
      // The window is the photo as sent: the engines start on it while the host decodes it for
      // its quality flags.
      async let reading = readDigitsResult(whole, request: request, meter: meter, digits: digits, decimals: decimals)
      let photo = try Self.decode(request.image)
      flags += Self.qualityFlags(photo)
      result = try await reading.get()
      result.crop = whole
    } else {
      let photo = try Self.decode(request.image)
      let crop = try await digitWindow(of: photo, request: request, meter: meter, identified: identified, flags: &flags)
      flags += Self.qualityFlags(crop)
      let cropImage = try cropImage(crop, of: photo, sent: request.image)
      if let meter, meter.kind == .bloodPressure {
        result = try await readFields(
          crop, ranges: [Plausibility.systolic, Plausibility.diastolic, Plausibility.pulse], meter: meter,
          options: request.options)
      } else {
        result = try await readDigits(cropImage, request: request, meter: meter, digits: digits, decimals: decimals)
      }
      result.crop = cropImage
    }
    result.meter = meter?.name ?? ""
    if let meter, !result.value.isEmpty {
      try await checkPlausibility(&result, meter: meter)
    }
    result.flags = Self.ordered(result.flags + flags)
    result.value = Self.withDecimals(result.value, decimals: Int(decimals))
    if !result.unrepairedValue.isEmpty {
      result.unrepairedValue = Self.withDecimals(result.unrepairedValue, decimals: Int(decimals))
    }
    if !request.stream.isEmpty {
      let (value, confidence) = (result.value, result.confidence)
      (result.frames, result.isFinal) = streams.withLock {
        $0.observe(request.stream, value: value, confidence: confidence)
      }
    }
    result.summary = Self.summary(result, meter: meter)
    if request.save {
      result.readingID = try await save(result, meter: meter, photo: request.image)
    }
    return result
  }

  /// The read engines' answers on the crop, voted.
  private func readDigits(_ crop: Image, request: ReadRequest, meter: Meter?, digits: UInt32, decimals: UInt32)
    async throws(ErrorReply) -> ReadResult
  {
    let engineRequest = ReadRequest(
      image: Image(data: crop.data, name: request.image.name), meter: meter?.name ?? "", digits: digits,
      decimals: decimals, options: request.options, examples: try await examples(of: meter))
    let store = store
    return try await plugins.read(engineRequest, expectedDigits: Int(digits)) { keys in
      // Only plugins that learn ask, and only for what they have not seen.
      guard let meter else { return [] }
      let wanted = Set(keys)
      let examples = (try? await store.examples(of: meter.name, limit: Self.examplesPerRead, crops: true)) ?? []
      return examples.filter { wanted.contains($0.key) }
    }
  }

  private func readDigitsResult(_ crop: Image, request: ReadRequest, meter: Meter?, digits: UInt32, decimals: UInt32)
    async -> Result<ReadResult, ErrorReply>
  {
    do {
      return .success(try await readDigits(crop, request: request, meter: meter, digits: digits, decimals: decimals))
    } catch {
      return .failure(error)
    }
  }

  static func decode(_ image: Image) throws(ErrorReply) -> VisionImage {
    do {
      return try VisionImage(decoding: image.data)
    } catch {
      throw ErrorReply(.badImage, "the photo does not decode: \(error)")
    }
  }

  /// The photo as sent, when it is the digit window itself (no ROI in the request, none for
  /// the meter, not a blood-pressure monitor's three lines) and a JPEG or PNG every engine
  /// decodes.
  func wholePhoto(_ request: ReadRequest, meter: Meter?) -> Image? {
    guard request.roi == nil, meter?.roi == nil, meter?.kind != .bloodPressure else { return nil }
    return asSent(request.image)
  }

  /// The photo's own bytes as the crop, when they are a JPEG or PNG (which every engine decodes).
  private func asSent(_ photo: Image) -> Image? {
    switch (try? ImageInfo.inspect(photo.data, limits: imageLimits))?.format {
    case .jpeg: Image(data: photo.data, name: "crop.jpg")
    case .png: Image(data: photo.data, name: "crop.png")
    default: nil
    }
  }

  /// The crop as the engines get it and the result carries it: when the window is the whole
  /// photo and the photo is a JPEG or PNG, the photo's own bytes (re-encoding took the host about
  /// a millisecond a request, and a phone photo as PNG is several times its JPEG); else the crop
  /// as PNG.
  func cropImage(_ crop: VisionImage, of photo: VisionImage, sent: Image) throws(ErrorReply) -> Image {
    if crop === photo, let asSent = asSent(sent) {
      return asSent
    }
    do {
      return Image(data: try crop.encoded(), name: "crop.png")
    } catch {
      throw ErrorReply(.internal, "the crop does not encode: \(error)")
    }
  }

  /// How many of a meter's latest confirmed readings go with each read, for engines that learn a
  /// meter's own digits.
  static let examplesPerRead = 20

  /// The meter's latest confirmed readings that kept their crop, without the crops.
  private func examples(of meter: Meter?) async throws(ErrorReply) -> [Example] {
    guard let meter else { return [] }
    do {
      return try await store.examples(of: meter.name, limit: Self.examplesPerRead)
    } catch {
      throw ErrorReply(error)
    }
  }

  /// The meter the request names; or, to save a reading of an unnamed meter, the one identified
  /// in the photo, with that identification.
  private func meterForReading(_ request: ReadRequest) async throws(ErrorReply) -> (Meter?, IdentifyResult?) {
    if !request.meter.isEmpty {
      do {
        return (try await store.meter(named: request.meter), nil)
      } catch {
        throw ErrorReply(error)
      }
    }
    guard request.save else { return (nil, nil) }
    let identified = try await plugins.identify(
      try await withStoredReferences(IdentifyRequest(image: request.image, references: [])))
    guard !identified.meter.isEmpty, identified.confidence >= IdentifyVote.sureToSave else {
      let candidates = identified.candidates.prefix(3).map { "\($0.meter) \(Int(($0.confidence * 100).rounded()))%" }
      throw ErrorReply(
        .notFound,
        "cannot save: not sure which meter this is (candidates: "
          + (candidates.isEmpty ? "none" : candidates.joined(separator: ", "))
          + "; \(Int(IdentifyVote.sureToSave * 100))% needed); name one with --meter")
    }
    do {
      return (try await store.meter(named: identified.meter), identified)
    } catch {
      throw ErrorReply(error)
    }
  }

  /// - Parameter identified: the photo's identification among all meters, when the meter came
  ///   from it; its homography is reused rather than identifying again.
  private func digitWindow(
    of photo: VisionImage, request: ReadRequest, meter: Meter?, identified: IdentifyResult?, flags: inout [ReadFlag]
  ) async throws(ErrorReply) -> VisionImage {
    if let roi = request.roi {
      return try cut { () throws(VisionError) in try photo.cropped(roi) }
    }
    guard let meter, let roi = meter.roi else {
      return photo
    }
    // Where is the meter's digit window in this photo? Its reference's ROI, through the
    // homography the identify plugins find between reference and photo.
    if let homography = try await homography(of: meter, in: request.image, identified: identified) {
      let corners = [
        (roi.x, roi.y), (roi.x + roi.width, roi.y), (roi.x + roi.width, roi.y + roi.height),
        (roi.x, roi.y + roi.height),
      ].map { project((Double($0.0), Double($0.1)), through: homography) }
      return try cut { () throws(VisionError) in
        try photo.straightened(
          corners.map { (Float($0.x), Float($0.y)) }, width: Int(roi.width), height: Int(roi.height))
      }
    }
    flags.append(.meterNotLocated)
    return try cut { () throws(VisionError) in try photo.cropped(roi) }
  }

  /// The homography from `meter`'s reference photo to `image`: from the identification already
  /// made when it named this meter, else from identifying among this meter's references alone.
  private func homography(of meter: Meter, in image: Image, identified: IdentifyResult?) async throws(ErrorReply)
    -> [Double]?
  {
    if let identified, identified.meter == meter.name {
      return identified.homography.count == 9 ? identified.homography : nil
    }
    let references: [Reference]
    do {
      references = try await store.references(of: meter.name)
    } catch {
      throw ErrorReply(error)
    }
    guard !references.isEmpty,
      let located = try? await plugins.identify(IdentifyRequest(image: image, references: references)),
      located.homography.count == 9
    else { return nil }
    return located.homography
  }

  private func cut(_ body: () throws(VisionError) -> VisionImage) throws(ErrorReply) -> VisionImage {
    do {
      return try body()
    } catch {
      throw ErrorReply(.invalidRequest, "cannot cut the digit window: \(error)")
    }
  }

  /// What makes the crop hard to read.
  static func qualityFlags(_ crop: VisionImage) -> [ReadFlag] {
    var flags: [ReadFlag] = []
    if crop.height < 12 || crop.width < 12 {
      flags.append(.tooSmall)
    }
    if let quality = try? crop.quality() {
      if quality.glare > 0.04 { flags.append(.glare) }
      if quality.sharpness < 40 { flags.append(.blur) }
    }
    return flags
  }

  /// The flags without repeats, each where it first came.
  static func ordered(_ flags: [ReadFlag]) -> [ReadFlag] {
    var seen = Set<ReadFlag>()
    return flags.filter { seen.insert($0).inserted }
  }

  /// The value with the meter's decimals: the point so many digits from the right, in place of
  /// one the display showed; with none set, the value as read.
  static func withDecimals(_ value: String, decimals: Int) -> String {
    let digits = value.filter(\.isNumber)
    guard decimals > 0, digits.count > decimals, value.allSatisfy({ $0.isNumber || $0 == "." }) else { return value }
    return String(digits.dropLast(decimals)) + "." + String(digits.suffix(decimals))
  }

  static func summary(_ result: ReadResult, meter: Meter?) -> String {
    let name = meter?.name ?? "Reading"
    guard !result.value.isEmpty else {
      return "\(name): no reading (\(result.flags.map(\.rawValue).joined(separator: ", ")))"
    }
    let unit = meter.map { " \($0.unit)" } ?? ""
    let repaired = result.unrepairedValue.isEmpty ? "" : ", corrected from \(result.unrepairedValue)"
    return "\(name): \(result.value)\(unit) (confidence \(Int((result.confidence * 100).rounded()))%\(repaired))"
  }

  private func save(_ result: ReadResult, meter: Meter?, photo: Image) async throws(ErrorReply) -> UInt64 {
    guard let meter else {
      throw ErrorReply(.invalidRequest, "cannot save a reading without a meter; name one with --meter")
    }
    guard !result.value.isEmpty else {
      throw ErrorReply(.invalidRequest, "nothing to save: \(result.summary)")
    }
    do {
      let stored = try await store.addReading(
        AddReadingRequest(
          meter: meter.name, value: result.value, photo: photo, source: .ocr, confidence: result.confidence,
          engines: result.engines, crop: result.crop?.data ?? []))
      return UInt64(stored.id)
    } catch {
      throw ErrorReply(error)
    }
  }
}

extension HostServer {
  /// Checks the voted value against the meter (see ``Plausibility``). An implausible value is
  /// repaired from the per-digit runners-up when one combination is plausible: the most likely
  /// such value wins and `repaired` says so; otherwise the value stays and `implausible` says so.
  func checkPlausibility(_ result: inout ReadResult, meter: Meter) async throws(ErrorReply) {
    let previous: StoredReading?
    do {
      previous = try await store.latestReading(of: meter.name)
    } catch {
      throw ErrorReply(error)
    }
    let rule = Plausibility(meter: meter, previous: previous, now: Int64(Date().timeIntervalSince1970 * 1000))
    if meter.kind == .bloodPressure {
      // Three fields, each in its own range: no single-string repair applies.
      if !Plausibility.allowsBloodPressure(result.value) {
        result.flags.append(.implausible)
      }
      return
    }
    guard !rule.allows(result.value) else { return }
    if let repaired = rule.repair(result.digits) {
      result.unrepairedValue = result.value
      result.value = repaired.value
      result.confidence = min(result.confidence, repaired.likelihood)
      result.flags.append(.repaired)
    } else {
      result.flags.append(.implausible)
    }
  }
}
