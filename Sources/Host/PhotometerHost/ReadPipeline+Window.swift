import PhotometerImages
import PhotometerProtocol
import PhotometerVision
import PluginSupervisor

extension ReadPipeline {
  /// The digit window: the request's ROI; else the meter's ROI, through the homography between
  /// its reference and the photo (``located(_:in:request:context:flags:)``; the ROI as it is when
  /// the meter is not found); else the whole photo. `location` keeps what was found, for the dials.
  func window(
    of photo: VisionImage, request: ReadRequest, context: Context, flags: inout [ReadFlag],
    location: inout Location
  ) async throws(PipelineError) -> VisionImage {
    if let roi = request.roi {
      // An ROI over the whole photo is the photo: the client gets its own bytes back.
      if roi.covers(width: photo.width, height: photo.height) {
        return photo
      }
      return try cut { () throws(VisionError) in try photo.cropped(roi) }
    }
    guard let meter = context.meter, let roi = meter.roi else {
      return photo
    }
    let homography = try await located(meter, in: photo, request: request, context: context, flags: &flags)
    location = .searched(homography)
    guard let homography else {
      let whole = try Self.inFull(photo, of: request.image)
      return try cut { () throws(VisionError) in try whole.cropped(roi) }
    }
    return try cut { () throws(VisionError) in try photo.straightened(roi, through: homography).image }
  }

  /// The homography from `meter`'s reference to the photo
  /// (``IdentifyPipeline/location(of:in:decoded:identified:)``), flagged as the read shows it:
  /// `located-by-face` when the reference's face placed it rather than the vote, `meter-not-located`
  /// when nothing did.
  func located(
    _ meter: Meter, in photo: VisionImage, request: ReadRequest, context: Context, flags: inout [ReadFlag]
  ) async throws(PipelineError) -> [Double]? {
    let found = try await identify.location(
      of: meter, in: request.image, decoded: photo, identified: context.identified)
    if let found {
      if found.byFace {
        flags.append(.locatedByFace)
      }
    } else {
      flags.append(.meterNotLocated)
    }
    return found?.homography
  }

  /// Whether rows of digits are searched for in the photo: no window is given (no ROI in the
  /// request, none for the meter) and it is a JPEG or PNG.
  func searchesRows(_ request: ReadRequest, format: ImageInfo.Format, meter: Meter?) -> Bool {
    request.roi == nil && meter?.roi == nil && asSent(request.image, format: format) != nil
  }

  /// The crop as the engines get it: uncompressed (BMP; PNG for a plugin older than protocol
  /// 1.4, ``HostServer/adaptCrop``), which each engine decodes in microseconds where a window's
  /// PNG took it a millisecond and the host more to encode. A whole photo of more than
  /// ``uncompressedPixels`` goes as it came when it is a JPEG or PNG (a phone photo as BMP is
  /// tens of megabytes). The client gets the crop back as ``resultCrop(_:of:engines:sent:format:)``
  /// keeps it.
  func cropImage(_ crop: VisionImage, of photo: VisionImage, sent: Image, format: ImageInfo.Format)
    throws(PipelineError) -> Image
  {
    if crop === photo, crop.width * crop.height > Self.uncompressedPixels, let asSent = asSent(sent, format: format) {
      return asSent
    }
    return try Self.forEngines(crop)
  }

  /// The crop a result keeps of what the engines read as `engines`: the photo's own bytes when
  /// `crop` is the whole photo and they are a JPEG or PNG, else `engines` (as the client gets it
  /// once the read is decided: ``clientCrop(_:)``).
  func resultCrop(_ crop: VisionImage, of photo: VisionImage, engines: Image, sent: Image, format: ImageInfo.Format)
    -> Image
  {
    crop === photo ? asSent(sent, format: format) ?? engines : engines
  }

  /// Whole photos up to this many pixels go to the engines uncompressed (3 MB as BMP).
  static let uncompressedPixels = 1_000_000

  /// `crop` as the engines get it, uncompressed (BMP).
  static func forEngines(_ crop: VisionImage, name: String = "crop.bmp") throws(PipelineError) -> Image {
    do {
      return Image(data: try crop.uncompressed(), name: name)
    } catch {
      throw .cropNotEncoded(error)
    }
  }

  /// The result's crop as the client and the store get it: an engines' BMP crop as PNG, any other
  /// crop (a JPEG or PNG: the photo's own bytes, a display's PNG) as it is. Once a read, for the
  /// crop the result keeps.
  func clientCrop(_ crop: Image?) throws(PipelineError) -> Image? {
    guard let crop, crop.isBMP else { return crop }
    do {
      return Image(data: try VisionImage(decoding: crop.data).encoded(), name: "crop.png")
    } catch {
      throw .cropNotEncoded(error)
    }
  }

  /// The photo's own bytes as the crop, when they are a JPEG or PNG (which every engine decodes).
  private func asSent(_ photo: Image, format: ImageInfo.Format) -> Image? {
    switch format {
    case .jpeg: Image(data: photo.data, name: "crop.jpg")
    case .png: Image(data: photo.data, name: "crop.png")
    default: nil
    }
  }

  func cut(_ body: () throws(VisionError) -> VisionImage) throws(PipelineError) -> VisionImage {
    do {
      return try body()
    } catch {
      throw .windowNotCut(error)
    }
  }

  /// `image` decoded; with `reducedToAtLeast` (0: whole), a JPEG at a half, a quarter or an
  /// eighth of its size when its longer side stays at least that, and with `atMost` (0: any), an
  /// image still larger shrunk to it
  /// (``PhotometerVision/VisionImage/init(decoding:reducedToAtLeast:atMost:)``).
  static func decode(_ image: Image, reducedToAtLeast least: Int = 0, atMost most: Int = 0) throws(PipelineError)
    -> VisionImage
  {
    do {
      return try VisionImage(decoding: image.data, reducedToAtLeast: least, atMost: most)
    } catch {
      throw .photoDoesNotDecode(error)
    }
  }

  /// `photo` as `image` was taken: decoded again in full when it was decoded smaller, for a
  /// meter's regions placed by the reference's pixels alone (the meter not located).
  static func inFull(_ photo: VisionImage, of image: Image) throws(PipelineError) -> VisionImage {
    photo.scale < 1 ? try decode(image) : photo
  }

  /// The least longer side a registered meter's photo of `longerSide` pixels is decoded at
  /// (``decode(_:reducedToAtLeast:)``; 0: whole): its window and its dials' area, as drawn on
  /// the first reference and scaled by the photo's size over the reference's, keep at least
  /// ``PhotometerVision/straightenedMost`` pixels across, so that they are straightened from at
  /// least as many pixels as they are given, as from the whole photo (a window straightened up
  /// from fewer read blurred: `blur` flags, one wheel in 40 read otherwise). A phone's
  /// 12-megapixel photo took 60 ms to decode whole. Whole when the request gives its own window
  /// or dials, or the meter has neither.
  static func decodedSide(for meter: Meter?, request: ReadRequest, longerSide: Int) -> Int {
    guard let meter, request.roi == nil, request.dials.isEmpty, let reference = meter.references.first,
      max(reference.width, reference.height) > 0, longerSide > 0
    else { return 0 }
    let ratio = Double(longerSide) / Double(max(reference.width, reference.height))
    let dialArea = meter.dials.isEmpty ? [] : [Rect(around: meter.dials.map(\.region))]
    let regions = (meter.roi.map { [$0] } ?? []) + dialArea
    guard let shortest = regions.map({ Double(min($0.width, $0.height)) * ratio }).min() else { return 0 }
    var reduction = 1
    while reduction < 8 && Double(2 * reduction) * PhotometerVision.straightenedMost <= shortest {
      reduction *= 2
    }
    return reduction > 1 ? longerSide / reduction : 0
  }

  /// The sharpness (``PhotometerVision/ImageQuality/sharpness``) under which a crop is flagged
  /// `blur`, fitted on the development windows blurred by a Gaussian of 2, 4 and 6% of their
  /// height: the reader lost 0, 4-15 and 23-47 points of them, and this flags 0-1% of crisp
  /// crops, 2-18% at 4% and 85-97% at 6% (docs/recognizers.md).
  static let blurredUnder = 40.0

  /// The glare (``PhotometerVision/ImageQuality/glare``) over which a crop is flagged `glare`,
  /// checked on the development windows with a saturated spot drawn on them (a Gaussian of 0.15,
  /// 0.25 and 0.4 of their height): the reader lost 51-99 points of them, and this flags 92-100%
  /// of them, 0-12% of the windows as drawn, whose own generators draw such spots
  /// (docs/recognizers.md).
  static let glaredOver = 0.02

  /// What makes the crop hard to read. `blur` is a sharpness under ``blurredUnder``, `glare` a
  /// glare over ``glaredOver``.
  static func qualityFlags(_ crop: VisionImage) -> [ReadFlag] {
    var flags: [ReadFlag] = []
    if crop.height < 12 || crop.width < 12 {
      flags.append(.tooSmall)
    }
    if let quality = try? crop.quality() {
      if quality.glare > glaredOver { flags.append(.glare) }
      if quality.sharpness < blurredUnder { flags.append(.blur) }
    }
    return flags
  }
}
