import PhotometerProtocol
import PhotometerVision

/// A matcher that learns reference photos once and ranks meters for a photo.
public protocol ReferenceMatcher {
  /// Whether the reference has been learnt (its photo, and whatever else of it the matcher uses).
  func knows(_ reference: Reference) -> Bool
  /// Reads the reference back from what a process before learnt and kept (a cache on disk);
  /// false when nothing of it was kept, and then it must be learnt from its photo.
  mutating func recall(_ reference: Reference) -> Bool
  /// Learns a reference: its photo, decoded with ``ReferenceIntake/maxSide``.
  mutating func learn(_ reference: Reference, image: VisionImage) throws(VisionError)
  /// Ranks the meters of `references` (all learnt) for the photo, best first.
  func rank(_ image: VisionImage, references: [Reference]) throws(VisionError) -> [Candidate]
}

extension HistogramMatcher: ReferenceMatcher {}
extension KeypointMatcher: ReferenceMatcher {}

/// What identify plugins do with the references of a request before matching: learn those that
/// came with their image, and list those that came without and are not known yet.
public enum ReferenceIntake {
  /// Photos are decoded with their longer side shrunk to this; matching needs no more.
  public static let maxSide = 640

  /// Requests of at most this many references are one meter's or a second look's: matchers keep
  /// what they make for them (an index, a table) apart from what they make for the household,
  /// which takes seconds at 10,000 meters.
  public static let fewReferences = 64

  /// Learns each reference `knows` says no to that came with its image (`knows` may learn it
  /// itself, from a cache).
  /// - Returns: the SHA-256 of references the plugin must be sent again with their image.
  public static func take(
    _ references: [Reference],
    knows: (Reference) -> Bool,
    learn: (Reference, VisionImage) throws(VisionError) -> Void
  ) throws(ErrorReply) -> [String] {
    var missing: [String] = []
    for reference in references where !knows(reference) {
      guard !reference.image.data.isEmpty else {
        missing.append(reference.sha256)
        continue
      }
      do {
        try learn(reference, try VisionImage(decoding: reference.image.data, maxSide: maxSide))
      } catch {
        throw ErrorReply(.badImage, "the reference photo of \(reference.meter) does not decode: \(error)")
      }
    }
    return missing
  }

  /// Decodes the photo to identify, or says why it cannot be.
  public static func query(_ image: Image) throws(ErrorReply) -> VisionImage {
    do {
      return try VisionImage(decoding: image.data, maxSide: maxSide)
    } catch {
      throw ErrorReply(.badImage, "the photo does not decode: \(error)")
    }
  }

  /// How many references one call reads back from what a process before kept, at most, besides
  /// those that came with their photo. The rest are listed as missing: the host asks again, and
  /// each call reads back as many more, so that no call's work grows with the household past the
  /// plugin's timeout (docs/recognizers.md, *A bounded read-back per call*).
  public static let recallsPerCall = 2_000

  /// An identify plugin's answer: the candidates `matcher` ranks, or the references it must be
  /// sent first.
  /// - Parameter limit: references read back at most (``recallsPerCall``).
  public static func identify(
    _ request: IdentifyRequest, with matcher: inout some ReferenceMatcher, recallingAtMost limit: Int = recallsPerCall
  ) throws(ErrorReply) -> PluginCandidates {
    // Known, or read back from what a process before kept; else learnt from its photo. One that
    // came with its photo is read back whatever the limit: that is cheaper than learning it.
    var recalls = 0
    let missing = try take(
      request.references,
      knows: { reference in
        guard !matcher.knows(reference) else { return true }
        guard recalls < limit || !reference.image.data.isEmpty else { return false }
        recalls += 1
        return matcher.recall(reference)
      }
    ) { reference, image throws(VisionError) in try matcher.learn(reference, image: image) }
    guard missing.isEmpty else {
      return PluginCandidates([], missingReferences: missing)
    }
    let image = try query(request.image)
    do {
      return PluginCandidates(try matcher.rank(image, references: request.references))
    } catch {
      throw ErrorReply(.internal, "matching failed: \(error)")
    }
  }
}
