import PhotometerProtocol
import PhotometerStore
import PhotometerVision

/// Why a read or an identification failed, as the pipelines see it. It becomes the client's
/// ``ErrorReply`` at the server's edge, and only there (`ErrorReply(_:)`).
enum PipelineError: Error {
  /// The client's photo passed the header checks and does not decode.
  case photoDoesNotDecode(VisionError)
  /// The digit window (the request's ROI, or the meter's through the homography) cannot be cut.
  case windowNotCut(VisionError)
  /// The cut window does not encode for the engines.
  case cropNotEncoded(VisionError)
  /// A blood-pressure display's lines cannot be found or cut.
  case displayLinesNotCut(VisionError)
  /// An identification among every registered meter, when there is none.
  case noMetersRegistered
  /// A reading to be saved without `--meter`, when the photo's meter is not sure enough.
  case notSureWhichMeter(candidates: [Candidate], needed: Double)
  /// A reading to be saved, of no meter.
  case saveWithoutMeter
  /// A reading to be saved, without a value.
  case nothingToSave(summary: String)
  /// A preview on a later photo, when the meter is not found in it.
  case meterNotInPhoto(String)
  /// A preview that cannot be drawn or encoded.
  case previewNotDrawn(VisionError)
  case store(StoreError)
  /// The plugins' failure as the supervisor reports it (none has the role, all refused the photo).
  case plugins(ErrorReply)
}

extension ErrorReply {
  init(_ error: PipelineError) {
    switch error {
    case .photoDoesNotDecode(let cause): self.init(.badImage, "the photo does not decode: \(cause)")
    case .windowNotCut(let cause): self.init(.invalidRequest, "cannot cut the digit window: \(cause)")
    case .cropNotEncoded(let cause): self.init(.internal, "the crop does not encode: \(cause)")
    case .displayLinesNotCut(let cause): self.init(.internal, "cannot cut the display's lines: \(cause)")
    case .noMetersRegistered:
      self.init(.notFound, "no meters are registered yet; add one with `photometer meter add`")
    case .notSureWhichMeter(let candidates, let needed):
      let named = candidates.prefix(3).map { "\($0.meter) \($0.confidence.percentText)" }
      self.init(
        .notFound,
        "cannot save: not sure which meter this is (candidates: "
          + (named.isEmpty ? "none" : named.joined(separator: ", "))
          + "; \(needed.percentText) needed); name one with --meter")
    case .saveWithoutMeter:
      self.init(.invalidRequest, "cannot save a reading without a meter; name one with --meter")
    case .nothingToSave(let summary): self.init(.invalidRequest, "nothing to save: \(summary)")
    case .meterNotInPhoto(let name):
      self.init(
        .notFound,
        "meter \(name) is not found in the photo, so its regions cannot be carried into it; preview it without "
          + "--photo, or with a photo that shows the whole meter")
    case .previewNotDrawn(let cause): self.init(.internal, "the preview cannot be drawn: \(cause)")
    case .store(let cause): self.init(cause)
    case .plugins(let reply): self = reply
    }
  }
}

/// The value of a store call, its failure as the pipeline's.
func stored<Value>(_ body: () async throws(StoreError) -> Value) async throws(PipelineError) -> Value {
  do {
    return try await body()
  } catch {
    throw .store(error)
  }
}

/// The value of a plugin fan-out, its failure as the pipeline's.
func fannedOut<Value>(_ body: () async throws(ErrorReply) -> Value) async throws(PipelineError) -> Value {
  do {
    return try await body()
  } catch {
    throw .plugins(error)
  }
}
