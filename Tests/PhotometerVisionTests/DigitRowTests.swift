import Foundation
import PhotometerProtocol
import PhotometerVision
import TestSupport
import Testing

/// Rows of digits found in whole photos of devices (Tools/make-device-photos.py, the style the
/// finder was designed on); photometer-benchmark-find measures the style it never saw.
@Suite struct DigitRowTests {
  @Test func findsTheDisplaysDigitsAmongTheBestRows() async throws {
    let folder = try await Rendered.devicePhotos(count: 12, seed: 7)
    let labels = try Rendered.rows(folder.appendingPathComponent("labels.csv"))
    let found = try await onOwnThread {
      try labels.filter { label in
        let photo = try VisionImage(decoding: [UInt8](try Data(contentsOf: folder.appendingPathComponent(label[0]))))
        let truth = label[3].split(separator: " ").compactMap { Int32($0) }
        return try photo.digitRows(limit: 3).contains {
          $0.box.overlap(with: Rect(x: truth[0], y: truth[1], width: truth[2], height: truth[3])) >= 0.5
        }
      }.count
    }
    #expect(found >= 10, "\(found) of \(labels.count)")
  }

  @Test func aBlankPhotoHasNoRows() throws {
    let blank = try VisionImage(pixels: [UInt8](repeating: 180, count: 320 * 240), width: 320, height: 240, channels: 1)
    #expect(try blank.digitRows().isEmpty)
  }
}
