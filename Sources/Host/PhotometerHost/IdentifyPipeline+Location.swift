import PhotometerProtocol
import PhotometerVision

extension IdentifyPipeline {
  /// Where a meter's reference lies in a photo.
  struct MeterLocation: Sendable {
    /// Row-major 3 x 3, from the reference's pixels to the photo's.
    var homography: [Double]
    /// Placed by the reference's face, not by the identify plugins' vote
    /// (``PhotometerProtocol/ReadFlag/locatedByFace``).
    var byFace: Bool
  }

  /// Where `meter`'s reference lies in `photo` (`image` decoded), as a homography from the
  /// reference: the identify plugins' when their vote locates it (``homographies(of:in:identified:)``);
  /// else a plugin's match too weak for the vote, refined from the whole face and kept when the face
  /// agrees (``PhotometerVision/VisionImage/homography(aligning:from:least:)``); else, for a meter
  /// with two dials or more, the one its dials and face give
  /// (``PointerDial/locate(_:in:reference:expectedScale:)``): a blurred photo of a plain dial face
  /// often has too few keypoints to be located by, and its dials are still circles. The dials
  /// cannot tell two meters of one model apart; the meter is the one the request names. A meter
  /// with two dials or more is then checked by them, and put back where a location puts it a dial
  /// or a wheel over (``PhotometerVision/PointerDial/checked(_:dials:reference:in:)``). Nil when none finds it.
  func location(of meter: Meter, in image: Image, decoded photo: VisionImage, identified: IdentifyResult?)
    async throws(PipelineError) -> MeterLocation?
  {
    let found = try await homographies(of: meter, in: image, identified: identified)
    let regions = meter.dials.map(\.region)
    let byDials = regions.count >= 2
    guard found.sure != nil || found.weak != nil || byDials else { return nil }
    let reference = found.sure == nil || byDials ? try? await referencePhoto(of: meter) : nil
    let located: MeterLocation
    if let sure = found.sure {
      located = MeterLocation(homography: sure, byFace: false)
    } else if let reference, let weak = found.weak,
      let aligned = try? photo.homography(aligning: reference, from: weak, least: VisionImage.faceCorrelation)
    {
      located = MeterLocation(homography: aligned, byFace: true)
    } else if byDials, let reference,
      let placed = try? PointerDial.locate(
        regions, in: photo, reference: reference,
        expectedScale: Self.expectedScale(of: meter, in: photo))
    {
      located = MeterLocation(homography: placed, byFace: true)
    } else {
      return nil
    }
    guard byDials, let reference else { return located }
    return MeterLocation(
      homography: PointerDial.checked(
        located.homography, dials: regions, reference: reference, in: photo),
      byFace: located.byFace)
  }

  /// The meter's first reference photo, decoded with at least ``referenceSide`` pixels on its
  /// longer side and at most twice that (its regions were drawn on it; they keep their pixels):
  /// kept from an earlier read (``referencePhotos``), else its bytes as `meter` carries them (a
  /// preview's meter is fetched with its photos), else the store's; nil when there are none.
  private func referencePhoto(of meter: Meter) async throws -> VisionImage? {
    guard let first = meter.references.first else { return nil }
    if let kept = referencePhotos.kept(first.sha256) { return kept }
    let stored = first.image == nil ? try await store.referenceImages([first.sha256])[first.sha256] : nil
    guard let image = first.image ?? stored else { return nil }
    let decoded = try VisionImage(
      decoding: image.data, reducedToAtLeast: Self.referenceSide, atMost: 2 * Self.referenceSide)
    referencePhotos.keep(decoded, for: first.sha256)
    return decoded
  }

  /// A reference is aligned with a photo at 320 pixels and its dials compared at 56 pixels
  /// across: a phone's 4,000-pixel JPEG is decoded by libjpeg at a quarter, with no resizing
  /// after (shrinking a half-size decode to 1,280 pixels had taken longer than the decode).
  static let referenceSide = 1000

  /// The photo's pixels per pixel of the meter's first reference, both as they were taken, as
  /// their longer sides say (a meter is photographed at about the same framing); 1 when the
  /// reference's size is not known.
  static func expectedScale(of meter: Meter, in photo: VisionImage) -> Double {
    guard let reference = meter.references.first, reference.width > 0, reference.height > 0 else { return 1 }
    return Double(max(photo.width, photo.height)) / photo.scale / Double(max(reference.width, reference.height))
  }
}
