import PhotometerProtocol
import PhotometerStore
import PhotometerVision

/// A meter's regions drawn for its user to check (`meter preview`): the digit window in green and
/// each pointer dial in magenta, labelled, on the first reference photo, or on a later photo
/// through the homography a read carries them by (``IdentifyPipeline/location(of:in:decoded:identified:)``).
struct PreviewPipeline: Sendable {
  let store: MeterStore
  let identify: IdentifyPipeline

  static let windowColour: UInt32 = 0x00FF00
  static let dialColour: UInt32 = 0xFF00FF

  func preview(of name: String, on photo: Image?) async throws(PipelineError) -> Image {
    let meter = try await stored { () throws(StoreError) in try await store.meter(named: name, includePhotos: true) }
    let canvas: VisionImage
    var homography: [Double]?
    if let photo {
      canvas = try ReadPipeline.decode(photo)
      homography = try await identify.location(of: meter, in: photo, decoded: canvas, identified: nil)?.homography
      guard homography != nil else {
        throw .meterNotInPhoto(meter.name)
      }
    } else {
      guard let reference = meter.references.first?.image else {
        throw .meterNotInPhoto(meter.name)
      }
      canvas = try ReadPipeline.decode(reference)
    }
    var marks: [VisionImage.Mark] = []
    if let roi = meter.roi {
      marks.append(
        VisionImage.Mark(corners: corners(of: roi, through: homography), colour: Self.windowColour, label: "digits"))
    }
    for dial in meter.dials {
      let label = "x\(dial.factor)" + (dial.counterClockwise ? " ccw" : "")
      marks.append(
        VisionImage.Mark(corners: corners(of: dial.region, through: homography), colour: Self.dialColour, label: label))
    }
    do {
      return Image(data: try canvas.annotated(marks).encoded(), name: "\(meter.name)-preview.png")
    } catch {
      throw .previewNotDrawn(error)
    }
  }
}
