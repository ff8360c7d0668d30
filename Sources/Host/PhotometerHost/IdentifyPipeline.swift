import PhotometerDigest
import PhotometerProtocol
import PhotometerStore
import PhotometerVoting
import PluginSupervisor

/// Which meter a photo shows: the references to compare it with (the request's, or every
/// registered meter's), every identify plugin's candidates, and their vote; when that names no
/// meter in a large household, a second look at the few it ranks first unlocated
/// (``IdentifyVote/secondLookReferences(after:in:)``). The result lists the first
/// ``PhotometerProtocol/IdentifyResult/listed`` meters of each ranking.
struct IdentifyPipeline: Sendable {
  let plugins: PluginSet
  let store: MeterStore
  /// The references decoded to locate meters by, kept between reads.
  let referencePhotos = ReferencePhotos()

  func identify(_ request: IdentifyRequest) async throws(PipelineError) -> IdentifyResult {
    var request = try await withStoredReferences(request)
    // Plugins cache by SHA-256 and are sent images only on demand: every reference needs it.
    for index in request.references.indices where request.references[index].sha256.isEmpty {
      request.references[index].sha256 = SHA256Digest.hex(request.references[index].image.data)
    }
    let first = try await fannedOut { () throws(ErrorReply) in
      try await plugins.identify(request, referenceImages: referenceImages)
    }
    let narrowed = IdentifyRequest(
      image: request.image, references: IdentifyVote.secondLookReferences(after: first, in: request.references))
    guard !narrowed.references.isEmpty else { return first.listing() }
    let second = try await fannedOut { () throws(ErrorReply) in
      try await plugins.identify(narrowed, referenceImages: referenceImages)
    }
    return IdentifyVote.afterSecondLook(first, second, looked: Set(narrowed.references.map(\.meter)).count).listing()
  }

  /// The stored reference photos a plugin asks for, by SHA-256 (references come bare from the
  /// store: ``PhotometerStore/MeterStore/references(of:images:)``).
  private var referenceImages: @Sendable ([String]) async -> [String: Image] {
    { [store] sha256s in (try? await store.referenceImages(sha256s)) ?? [:] }
  }

  /// The homographies from `meter`'s reference photo to `image` the identify plugins give: `sure`,
  /// the vote's (from the identification already made when it named this meter, else from
  /// identifying among this meter's references alone); `weak`, when the vote located none, the
  /// first located candidate for the meter in the plugins' answers (a match too weak for the vote).
  func homographies(of meter: Meter, in image: Image, identified: IdentifyResult?) async throws(PipelineError)
    -> (sure: [Double]?, weak: [Double]?)
  {
    if let identified, identified.meter == meter.name {
      return (identified.homography.count == 9 ? identified.homography : nil, nil)
    }
    let references = try await stored { () throws(StoreError) in
      try await store.references(of: meter.name, images: false)
    }
    guard !references.isEmpty,
      let located = try? await plugins.identify(
        IdentifyRequest(image: image, references: references), referenceImages: referenceImages)
    else { return (nil, nil) }
    if located.homography.count == 9 {
      return (located.homography, nil)
    }
    let weak = located.plugins.lazy.compactMap(\.value).flatMap { $0 }
      .first { $0.meter == meter.name && $0.homography.count == 9 }
    return (nil, weak?.homography)
  }

  /// The request's references, or every registered meter's when it gives none, named as a
  /// reference set so plugins that keep it are sent the name alone. Only the host names sets: a
  /// client's name could make plugins keep its list under the household's.
  private func withStoredReferences(_ request: IdentifyRequest) async throws(PipelineError) -> IdentifyRequest {
    var request = request
    request.referenceSet = ""
    guard request.references.isEmpty else {
      return request
    }
    (request.references, request.referenceSet) = try await stored { () throws(StoreError) in
      try await store.household()
    }
    guard !request.references.isEmpty else {
      throw .noMetersRegistered
    }
    return request
  }
}
