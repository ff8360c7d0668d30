import DigitTemplates
import Foundation
import PhotometerVision
import TestSupport
import Testing

@Suite struct TemplateEngineTests {
  static let engine = Result { try TemplateEngine.bundled() }

  /// Exact reads of `kind` windows the templates were not trained on (other seeds).
  func exactReads(_ kind: String, count: Int, seed: Int, extra: [String] = []) async throws -> Int {
    let folder = try await Rendered.digits(kind, count: count, seed: seed, extra: extra)
    return try await onOwnThread {
      let engine = try Self.engine.get()
      var right = 0
      for row in try Rendered.rows(folder.appendingPathComponent("labels.csv")) {
        let image = try VisionImage(decoding: [UInt8](try Data(contentsOf: folder.appendingPathComponent(row[0]))))
        let accepted = row[2].split(separator: "|").map(String.init)
        let reading = try engine.read(image, expected: accepted.count)
        #expect(reading.symbols.count == reading.text.count)
        right +=
          zip(reading.text, accepted).allSatisfy { $1.contains($0) } && reading.text.count == accepted.count ? 1 : 0
      }
      return right
    }
  }

  @Test func readsRenderedSevenSegmentDisplays() async throws {
    #expect(try await exactReads("sevenseg", count: 20, seed: 101) >= 14)
  }

  @Test func readsRenderedWheelCounters() async throws {
    #expect(try await exactReads("wheels", count: 20, seed: 102) >= 12)
  }

  @Test(
    "reads held-out real digits",
    .enabled(if: FileManager.default.fileExists(atPath: "\(Products.repository)/../shared/data/meterdigits"))
  )
  func readsHeldOutRealDigits() async throws {
    #expect(try await exactReads("real", count: 60, seed: 103, extra: ["--digits", "1"]) >= 54)
  }

  @Test func templateFilesRoundTrip() async throws {
    let templates = try await onOwnThread { try DigitTemplates.bundled() }
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("templates-\(UUID().uuidString).bin")
    try templates.write(to: url)
    let again = try DigitTemplates(contentsOf: url)
    #expect(again.labels == templates.labels)
    #expect(again.features == templates.features)
    #expect(again.mean == templates.mean)
  }

  @Test func aTruncatedTemplateFileIsRefused() async throws {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("templates-\(UUID().uuidString).bin")
    try Data("PMDT".utf8 + [2, 0, 0, 0]).write(to: url)
    #expect(throws: (any Error).self) { try DigitTemplates(contentsOf: url) }
  }
}
