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
      return try cut { () throws(VisionError) in try photo.cropped(roi) }
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

  static func decode(_ image: Image) throws(PipelineError) -> VisionImage {
    do {
      return try VisionImage(decoding: image.data)
    } catch {
      throw .photoDoesNotDecode(error)
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
}
