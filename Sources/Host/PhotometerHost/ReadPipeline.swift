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

  /// - Parameter format: the photo's format, from the header the server checked.
  func read(_ request: ReadRequest, format: ImageInfo.Format) async throws(PipelineError) -> ReadResult {
    let context = try await context(for: request)
    var result: ReadResult
    var flags: [ReadFlag] = []
    var location = Location.notSearched
    var decoded: VisionImage?
    if let whole = wholePhoto(request, format: format, meter: context.meter) {
      // No window given: the rows of digits found in the photo, or the photo as sent when it is
      // itself a digit window.
      let photo = try Self.decode(request.image)
      decoded = photo
      if let found = try await readFoundRows(
        in: photo, request: request, context: context, kind: context.meter?.kind ?? request.kind)
      {
        result = found
        flags += Self.qualityFlags(try Self.decode(found.crop ?? whole))
      } else {
        flags += Self.qualityFlags(photo)
        result = try await fanOut(whole, request: request, context: context)
        result.crop = whole
      }
    } else {
      let photo = try Self.decode(request.image)
      decoded = photo
      let crop = try await window(of: photo, request: request, context: context, flags: &flags, location: &location)
      flags += Self.qualityFlags(crop)
      let cropImage = try cropImage(crop, of: photo, sent: request.image, format: format)
      if let meter = context.meter, meter.kind == .bloodPressure {
        result = try await readFields(
          crop, ranges: [Plausibility.systolic, Plausibility.diastolic, Plausibility.pulse], meter: meter,
          options: request.options)
      } else {
        result = try await fanOut(cropImage, request: request, context: context)
      }
      result.crop = cropImage
    }
    // With its dials joined, the value has a decimal place a dial more than the wheels show; an
    // extended counter's, one more for its last wheel's roll.
    var (meter, decimals) = (context.meter, Int(context.decimals))
    let dials = Self.dials(of: request, meter: context.meter)
    var places = 0
    if !dials.isEmpty, let photo = decoded,
      try await joinDials(
        dials, photo: photo, request: request, context: context, location: location, result: &result, flags: &flags)
    {
      places = dials.count
    } else if dials.isEmpty, meter?.extended == true, Self.extendWheels(&result) {
      places = 1
    }
    decimals += places
    meter?.decimals += places
    if let digits = meter?.digits, digits > 0 {
      meter?.digits = digits + places
    }
    let decision = ReadDecision(
      meter: meter, previous: context.latest, decimals: decimals, now: Int64(Date().timeIntervalSince1970 * 1000))
    result = decision.decide(result, flags: flags)
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

  /// The read engines' answers on the crop, voted.
  private func fanOut(_ crop: Image, request: ReadRequest, context: Context) async throws(PipelineError)
    -> ReadResult
  {
    let engineRequest = ReadRequest(
      image: Image(data: crop.data, name: request.image.name), meter: context.meter?.name ?? "",
      digits: context.digits, decimals: context.decimals, options: request.options, examples: context.examples)
    let store = store
    let meter = context.meter
    return try await fannedOut { () throws(ErrorReply) in
      try await plugins.read(engineRequest, expectedDigits: Int(context.digits)) { keys in
        // Only plugins that learn ask, and only for what they have not seen.
        guard let meter else { return [] }
        let wanted = Set(keys)
        let examples = (try? await store.examples(of: meter.name, limit: Self.examplesPerRead, crops: true)) ?? []
        return examples.filter { wanted.contains($0.key) }
      }
    }
  }

  func fanOutResult(_ crop: Image, request: ReadRequest, context: Context) async
    -> Result<ReadResult, PipelineError>
  {
    do {
      return .success(try await fanOut(crop, request: request, context: context))
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
