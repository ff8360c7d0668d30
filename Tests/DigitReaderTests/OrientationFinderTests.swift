import DigitReader
import Foundation
import PhotometerVision
import TestSupport
import Testing

/// The committed orientation finder, loaded as the host loads it, on whole photos of devices drawn
/// in DSEG faces (Tools/make-device-photos.py), which it never trained on, turned every way.
@Suite struct OrientationFinderTests {
  static let finder = Result { try OrientationFinder.bundled() }

  /// Each photo turned 0, 1, 2 and 3 quarter turns clockwise is named at that turn. (The floor
  /// guards against a broken load, input or reading of the map; photometer-benchmark-find
  /// measures the accuracy through the host.)
  @Test func namesTheTurnOfEachPhoto() async throws {
    let folder = try await Rendered.devicePhotos(count: 6, seed: 7)
    let labels = try Rendered.rows(folder.appendingPathComponent("labels.csv"))
    let right = try await onOwnThread {
      let finder = try Self.finder.get()
      var right = 0
      for label in labels {
        let photo = try VisionImage(decoding: [UInt8](try Data(contentsOf: folder.appendingPathComponent(label[0]))))
        for turns in 0..<4 {
          let turned = try photo.turned(quarterTurns: turns)
          let masses = try finder.masses(in: turned)
          #expect(masses.allSatisfy { $0 >= 0 } && masses.reduce(0, +) > 1, "\(label[0]) at \(turns): \(masses)")
          right += try finder.quarterTurns(of: turned) == turns ? 1 : 0
        }
      }
      return right
    }
    #expect(right >= 20, "\(right) of \(4 * labels.count)")
  }

  /// A plain grey photo shows no digits: it is left as it came.
  @Test func aBlankPhotoStaysAsItCame() throws {
    let finder = try Self.finder.get()
    let blank = try VisionImage(pixels: [UInt8](repeating: 128, count: 320 * 240), width: 320, height: 240, channels: 1)
    #expect(try finder.quarterTurns(of: blank) == 0)
  }
}
