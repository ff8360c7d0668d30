import Foundation
import PhotometerProtocol
import PhotometerVision

/// Meters found in their photo by their dials alone (`PointerDial.locate`), from the reference's
/// regions, in this process: a meter counts as placed when every reference dial's centre lands
/// within 0.15 of its radius of the photo's dial's, and its digit window's centre within a fifth of
/// a digit; by the dials' similarity alone, and refined with the reference photo (ECC), each timed.
struct LocateScore {
  var meters = 0
  var placedRough = 0
  var placedFine = 0
  var roughMilliseconds: [Double] = []
  var fineMilliseconds: [Double] = []

  mutating func add(_ meter: RenderedMeter, photo: VisionImage, folder: URL, showErrors: Bool) throws {
    guard let reference = meter.reference else { return }
    let referencePhoto = try VisionImage(
      decoding: [UInt8](try Data(contentsOf: folder.appendingPathComponent(reference.file))))
    let regions = reference.dials.map(\.region)
    let scale = Double(max(photo.width, photo.height)) / Double(max(referencePhoto.width, referencePhoto.height))
    var started = ContinuousClock.now
    let rough = try PointerDial.locate(regions, in: photo, expectedScale: scale)
    roughMilliseconds.append((ContinuousClock.now - started).milliseconds)
    started = ContinuousClock.now
    let fine = try PointerDial.locate(regions, in: photo, reference: referencePhoto, expectedScale: scale)
    fineMilliseconds.append((ContinuousClock.now - started).milliseconds)
    meters += 1
    placedRough += rough.map { Self.places(meter, $0) } == true ? 1 : 0
    placedFine += fine.map { Self.places(meter, $0) } == true ? 1 : 0
    if showErrors && fine.map({ Self.places(meter, $0) }) != true {
      print("  \(meter.file) (dials locate): \(fine == nil ? "not located" : "placed wrong")")
    }
  }

  /// Whether `homography` carries the reference's dials and window onto the photo's.
  static func places(_ meter: RenderedMeter, _ homography: [Double]) -> Bool {
    guard let reference = meter.reference else { return false }
    func centre(_ rect: Rect) -> (x: Double, y: Double) {
      (Double(rect.x) + Double(rect.width) / 2, Double(rect.y) + Double(rect.height) / 2)
    }
    func apart(_ from: Rect, _ to: Rect) -> Double {
      let (carried, truth) = (project(centre(from), through: homography), centre(to))
      return hypot(carried.x - truth.x, carried.y - truth.y)
    }
    let dials = zip(reference.dials, meter.dials).allSatisfy { from, to in
      apart(from.region, to.region) <= 0.15 * Double(min(to.region.width, to.region.height)) / 2
    }
    return dials && apart(reference.wheels, meter.wheels) <= 0.2 * Double(meter.wheels.width) / 5
  }

  func row(_ name: String) -> String {
    func p50(_ values: [Double]) -> String {
      String(format: "%.1f", values.sorted().dropFirst(values.count / 2).first ?? 0)
    }
    return "\(name) | \(meters) | \(share(placedRough, meters)), \(p50(roughMilliseconds)) ms | "
      + "\(share(placedFine, meters)), \(p50(fineMilliseconds)) ms"
  }
}
