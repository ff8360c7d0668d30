import PhotometerProtocol

/// A second look: when the vote among more than ``secondLookAbove`` meters names none, the photo
/// is compared again with the few meters the vote ranks first among those no plugin located in it.
///
/// A plugin that verifies by geometry (keypoints and a homography) checks only a shortlist of a
/// large household, a few dozen of thousands, and may never have checked the right meter; a
/// plugin that ranks by what it cannot verify (colour) often ranks it near the top. Asked again
/// with those meters' references alone, the verifying plugin checks every one of them, and the
/// vote among them names the meter only when it verifies one (docs/recognizers.md, *A second
/// look*). In smaller households the verifying plugin checks a larger share, and a second look
/// named unknown meters of the second household style.
extension IdentifyVote {
  /// How many meters a second look compares the photo with.
  public static let secondLookMeters = 5
  /// Households of at most this many meters get no second look.
  public static let secondLookAbove = 1000

  /// The meters to look at again after `result`, a vote among `meters` meters: none when it
  /// names a meter or `meters` is at most ``secondLookAbove``, else the first
  /// ``secondLookMeters`` of its ranking with no homography (no plugin located them in the photo).
  public static func secondLook(after result: IdentifyResult, among meters: Int) -> [String] {
    guard result.meter.isEmpty, meters > secondLookAbove else { return [] }
    return Array(result.candidates.filter { $0.homography.isEmpty }.prefix(secondLookMeters).map(\.meter))
  }

  /// The references of the meters ``secondLook(after:among:)`` picks among `references`, the
  /// household the vote was among; empty when there is no second look. The household's meters
  /// are counted only when the vote named none in more than ``secondLookAbove`` references.
  public static func secondLookReferences(after result: IdentifyResult, in references: [Reference]) -> [Reference] {
    guard result.meter.isEmpty, references.count > secondLookAbove else { return [] }
    let looked = Set(secondLook(after: result, among: Set(references.map(\.meter)).count))
    return references.filter { looked.contains($0.meter) }
  }

  /// The identification after a second look at `meters` meters: `second`'s when it names a
  /// meter, with `first`'s plugin answers (each plugin's for the whole household); else `first`.
  public static func afterSecondLook(_ first: IdentifyResult, _ second: IdentifyResult, looked meters: Int)
    -> IdentifyResult
  {
    guard !second.meter.isEmpty else { return first }
    var result = second
    result.plugins = first.plugins
    result.summary = "\(second.summary), on a second look at the \(meters) meters first ranked but not located"
    return result
  }
}
