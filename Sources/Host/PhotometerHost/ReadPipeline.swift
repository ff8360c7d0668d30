import Foundation
import PhotometerImages
import PhotometerProtocol
import PhotometerStore
import PhotometerVision
import PhotometerVoting
import PluginSupervisor
import Synchronization

/// One read, stage by stage:
///
/// 1. the context: the meter (named, or identified when the reading is to be saved), its
///    examples and latest reading, in one store read;
/// 2. the window: the crop the engines read (the request's ROI; the meter's, carried through the
///    identify homography; else the row of digits found in the photo, each row found read and
///    one chosen; else the whole photo) and what makes it hard to read;
/// 3. the fan-out: every read engine's answer and their vote; with pointer dials, the dials
///    plugins' answers joined to the wheels (``DialChain``);
/// 4. the decision: the meter's checks, flags, decimals and summary (``ReadDecision``), and for
///    frames of a stream whether the value has converged;
/// 5. the save, when asked.
final class ReadPipeline: Sendable {
  let plugins: PluginSet
  let store: MeterStore
  let identify: IdentifyPipeline
  /// Live frames of displays, by stream name.
  let streams = Mutex(StreamConvergence())

  /// How many of a meter's latest confirmed readings go with each read, for engines that learn a
  /// meter's own digits.
  static let examplesPerRead = 20

  init(plugins: PluginSet, store: MeterStore) {
    self.plugins = plugins
    self.store = store
    self.identify = IdentifyPipeline(plugins: plugins, store: store)
  }

  /// What the stages after the first know of the meter.
  struct Context {
    var meter: Meter?
    /// The photo's identification among all meters, when it named the meter: its homography is
    /// reused rather than identifying again.
    var identified: IdentifyResult?
    var examples: [Example] = []
    var latest: StoredReading?
    /// The meter's digit count and decimals, else the request's.
    var digits: UInt32
    var decimals: UInt32
  }

  /// - Parameter photo: the photo's format and size, from the header the server checked.
  func read(_ request: ReadRequest, photo info: ImageInfo) async throws(PipelineError) -> ReadResult {
    // The shadow engines read only when their answers are kept (a saved reading, for
    // `photometer ab`) or asked for; otherwise the reply does not wait for them (a shadow
    // Tesseract took a sixth of a whole photo's reply; docs/protocol.md).
    var request = request
    request.shadows = request.shadows || request.save
    let format = info.format
    let context = try await context(for: request)
    var flags: [ReadFlag] = []
    var location = Location.notSearched
    // The photo as the window was cut from it: a registered meter's decoded no larger than its
    // regions need (``decodedSide(for:request:longerSide:)``). Nil when rows were searched for in
    // a whole photo, decoded at the search's size (``searchRows(in:request:context:kind:)``); the
    // dials decode it then if they need it.
    var photo: VisionImage?
    var result: ReadResult
    let kind = context.meter?.kind ?? request.kind
    let searched = searchesRows(request, format: format, meter: context.meter)
    let found = searched ? try await searchRows(in: request.image, request: request, context: context, kind: kind) : nil
    // A photo that may be a window cropped close (shaped like one, or its row doubted: a
    // display's digits found each alone) is read whole as well when a survey of it whole is
    // surer than its row, and the surer reading taken.
    var rowTaken = found != nil
    if let found,
      WindowChoice.mayBeWindow(width: info.width, height: info.height, chosen: found.result.confidence, kind: kind)
    {
      rowTaken = try await !surveyedWholeIsSurer(request, than: found.result, context: context, kind: kind)
    }
    if let found, rowTaken {
      flags += Self.qualityFlags(found.row)
      result = found.result
    } else {
      // Not searched, or perhaps a window: read whole.
      let whole = try await readWhole(request, photo: info, context: context)
      if let found, !WindowChoice.prefers(whole.result, over: found.result, kind: kind) {
        flags += Self.qualityFlags(found.row)
        result = found.result
      } else {
        (photo, result, location) = (whole.photo, whole.result, whole.location)
        flags += whole.flags
        if searched, found == nil,
          WindowChoice.mayBeScene(width: info.width, height: info.height, whole: result.confidence, kind: kind),
          let rows = try await searchRows(
            in: request.image, request: request, context: context, kind: kind, asScene: true),
          WindowChoice.prefers(rows.result, over: result, kind: kind)
        {
          // Judged a window cropped close and read whole unsurely: its rows, read as a scene's,
          // are surer (R173).
          (photo, result, location) = (nil, rows.result, .notSearched)
          flags = Self.qualityFlags(rows.row)
        } else if searched, kind == nil, context.decimals == 0, WindowChoice.wholeNeedsPoint(result.value),
          let value = try await pointed(result.value, in: whole.photo, request: request, context: context, survey: true)
        {
          // A display sent with no window, its point too small at the reader's height in the
          // whole photo's: the point of its digits cut tight, surveyed (R166).
          result.value = value
        }
      }
    }
    // In the kind's format, however the window was had: a thermometer's 375, its point not read,
    // is 37.5 (a row found in a whole photo was put so already), and its 039.1 is 39.1.
    if let kind {
      result.value = WindowChoice.shown(result.value, kind: kind)
    }
    let places = try await readFinerPlaces(
      of: photo, request: request, context: context, location: location, result: &result, flags: &flags)
    result = Self.decision(context, places: places.count, measured: places.measured, kind: request.kind)
      .decide(result, flags: flags)
    result.crop = try clientCrop(result.crop)
    if !request.stream.isEmpty {
      let (value, confidence) = (result.value, result.confidence)
      (result.frames, result.isFinal) = streams.withLock {
        $0.observe(request.stream, value: value, confidence: confidence)
      }
    }
    if request.save {
      result.readingID = try await save(result, meter: context.meter, photo: request.image)
    }
    return result
  }

  // MARK: Stages

  /// Whether the photo, read whole as a survey (``ReadRequest/survey``) decoded small, would be
  /// taken over `row`, the reading of the row chosen in it (``WindowChoice/prefers(_:over:kind:)``):
  /// a scene's whole photo seldom is, and costs then a survey, not a full read.
  private func surveyedWholeIsSurer(_ request: ReadRequest, than row: ReadResult, context: Context, kind: MeterKind?)
    async throws(PipelineError) -> Bool
  {
    let photo = try Self.decode(request.image, reducedToAtLeast: Self.surveyedSide, atMost: 2 * Self.surveyedSide)
    let survey = try await fanOut(try Self.forEngines(photo), request: request, context: context, survey: true)
    return WindowChoice.prefers(survey, over: row, kind: kind)
  }

  /// The least longer side a whole photo is surveyed at, and half the most (a PNG is shrunk to
  /// it, a JPEG decoded at a fraction): the reader reads at 32 pixels high.
  static let surveyedSide = 256

  /// The photo read whole as a window (the request's or the meter's, else the whole image): the
  /// photo as decoded for it, the reading, its flags and where the meter was found.
  private func readWhole(_ request: ReadRequest, photo info: ImageInfo, context: Context)
    async throws(PipelineError) -> (photo: VisionImage, result: ReadResult, flags: [ReadFlag], location: Location)
  {
    var flags: [ReadFlag] = []
    var location = Location.notSearched
    let least = Self.decodedSide(for: context.meter, request: request, longerSide: max(info.width, info.height))
    let decoded = try Self.decode(request.image, reducedToAtLeast: least)
    let result = try await readWindow(
      of: decoded, request: request, format: info.format, context: context, flags: &flags, location: &location)
    return (decoded, result, flags, location)
  }

  /// The window (the request's ROI; the meter's, through the homography; else the whole photo)
  /// read by every engine, with the flags of what made it hard to read. A blood-pressure
  /// monitor's lines are cut from the window.
  private func readWindow(
    of photo: VisionImage, request: ReadRequest, format: ImageInfo.Format, context: Context,
    flags: inout [ReadFlag], location: inout Location
  ) async throws(PipelineError) -> ReadResult {
    let kind = context.meter?.kind ?? request.kind
    let crop = try await window(of: photo, request: request, context: context, flags: &flags, location: &location)
    flags += Self.qualityFlags(crop)
    let cropImage = try cropImage(crop, of: photo, sent: request.image, format: format)
    var result: ReadResult
    if kind == .bloodPressure {
      result = try await readFields(
        crop, ranges: Plausibility.bloodPressureFields, request: request, context: context)
    } else {
      result = try await fanOut(cropImage, request: request, context: context)
    }
    result.crop = resultCrop(crop, of: photo, engines: cropImage, sent: request.image, format: format)
    return result
  }

  /// The decimal places past the wheels: the pointer dials joined (the meter's or the request's),
  /// or an extended counter's last wheel's roll. Returns how many places the value gained, and how
  /// many of them dials measured (an extended counter's roll is the reader's guess, no measure).
  /// The wheels turning with the last are settled here too: by the dials' chain when there are
  /// dials, else named on the last's side (``PhotometerVoting/TurningWheels``).
  /// `photo`: the photo as a stage decoded it already.
  private func readFinerPlaces(
    of photo: VisionImage?, request: ReadRequest, context: Context, location: Location, result: inout ReadResult,
    flags: inout [ReadFlag]
  ) async throws(PipelineError) -> (count: Int, measured: Int) {
    let dials = Self.dials(of: request, meter: context.meter)
    if !dials.isEmpty {
      let decoded: VisionImage
      if let photo { decoded = photo } else { decoded = try Self.decode(request.image) }
      let joined = try await joinDials(
        dials, photo: decoded, request: request, context: context, location: location, result: &result, flags: &flags)
      let places = joined ? dials.count : 0
      return (places, places)
    }
    if Self.mayTurn(context.meter?.kind ?? request.kind) {
      (result.value, result.digits) = TurningWheels.namedAlike(value: result.value, digits: result.digits)
    }
    return (context.meter?.extended == true && Self.extendWheels(&result) ? 1 : 0, 0)
  }

  /// Whether a meter of `kind` (nil: not known) may show counter wheels; a display's digits never
  /// turn together.
  static func mayTurn(_ kind: MeterKind?) -> Bool {
    ![.glucose, .thermometer, .bloodPressure].contains(kind)
  }

  /// The decision for the meter as read: `places` decimals more than its wheels show, `measured`
  /// of them by pointer dials; with no meter, what the request says the photo shows (`kind`).
  private static func decision(_ context: Context, places: Int, measured: Int, kind: MeterKind?) -> ReadDecision {
    var meter = context.meter
    meter?.decimals += places
    if let digits = meter?.digits, digits > 0 {
      meter?.digits = digits + places
    }
    return ReadDecision(
      meter: meter, previous: context.latest, decimals: Int(context.decimals) + places,
      now: Int64(Date().timeIntervalSince1970 * 1000), finerPlaces: measured, kind: kind)
  }

  /// The meter the request names; or, to save a reading of an unnamed meter, the one identified
  /// in the photo, with that identification.
  private func context(for request: ReadRequest) async throws(PipelineError) -> Context {
    var name = request.meter
    var identified: IdentifyResult?
    if name.isEmpty && request.save {
      let identification = try await identify.identify(IdentifyRequest(image: request.image, references: []))
      guard !identification.meter.isEmpty, identification.confidence >= IdentifyVote.sureToSave else {
        throw .notSureWhichMeter(candidates: identification.candidates, needed: IdentifyVote.sureToSave)
      }
      (name, identified) = (identification.meter, identification)
    }
    guard !name.isEmpty else {
      return Context(digits: request.digits, decimals: request.decimals)
    }
    let stored = try await stored { () throws(StoreError) in
      try await store.readingContext(of: name, examples: Self.examplesPerRead)
    }
    return Context(
      meter: stored.meter, identified: identified, examples: stored.examples, latest: stored.latest,
      digits: UInt32(stored.meter.digits), decimals: UInt32(stored.meter.decimals))
  }

  /// The read engines' answers on the crop, voted; `survey`: read only to compare rows
  /// (``ReadRequest/survey``).
  private func fanOut(_ crop: Image, request: ReadRequest, context: Context, survey: Bool = false)
    async throws(PipelineError) -> ReadResult
  {
    let engineRequest = Self.engineRequest(crop, request: request, context: context, survey: survey)
    let exampleCrops = exampleCrops(context)
    return try await fannedOut { () throws(ErrorReply) in
      try await plugins.read(engineRequest, expectedDigits: Int(context.digits), exampleCrops: exampleCrops)
    }
  }

  /// `survey`, a survey read's result of `crop`, made a full read's: only the engines that read
  /// the survey otherwise or not at all read again (``PluginSet/completedReadAnswers``), and the
  /// answers are voted again.
  func completed(_ survey: ReadResult, crop: Image, request: ReadRequest, context: Context) async -> ReadResult {
    let answers = await plugins.completedReadAnswers(
      Self.engineRequest(crop, request: request, context: context, survey: false), survey: survey.engines,
      exampleCrops: exampleCrops(context))
    guard answers != survey.engines else { return survey }
    return ReadVote.result(answers, weights: plugins.weights, expectedDigits: Int(context.digits))
  }

  /// What the read engines are sent for `crop`.
  private static func engineRequest(_ crop: Image, request: ReadRequest, context: Context, survey: Bool)
    -> ReadRequest
  {
    ReadRequest(
      image: Image(data: crop.data, name: request.image.name), meter: context.meter?.name ?? "",
      digits: context.digits, decimals: context.decimals, options: request.options, examples: context.examples,
      survey: survey, foundRow: request.foundRow, shadows: request.shadows)
  }

  /// The crops of the meter's examples with the keys an engine asks for: only plugins that learn
  /// ask, and only for what they have not seen.
  private func exampleCrops(_ context: Context) -> @Sendable ([String]) async -> [Example] {
    let store = store
    let meter = context.meter
    return { keys in
      guard let meter else { return [] }
      let wanted = Set(keys)
      let examples = (try? await store.examples(of: meter.name, limit: Self.examplesPerRead, crops: true)) ?? []
      return examples.filter { wanted.contains($0.key) }
    }
  }

  func fanOutResult(_ crop: Image, request: ReadRequest, context: Context, survey: Bool = false) async
    -> Result<ReadResult, PipelineError>
  {
    do {
      return .success(try await fanOut(crop, request: request, context: context, survey: survey))
    } catch {
      return .failure(error)
    }
  }

  private func save(_ result: ReadResult, meter: Meter?, photo: Image) async throws(PipelineError) -> UInt64 {
    guard let meter else {
      throw .saveWithoutMeter
    }
    guard !result.value.isEmpty else {
      throw .nothingToSave(summary: result.summary)
    }
    let saved = try await stored { () throws(StoreError) in
      try await store.addReading(
        AddReadingRequest(
          meter: meter.name, value: result.value, photo: photo, source: .ocr, confidence: result.confidence,
          engines: result.engines, crop: result.crop?.data ?? []))
    }
    return UInt64(saved.id)
  }
}
