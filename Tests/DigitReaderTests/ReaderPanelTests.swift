import Foundation
import PhotometerProtocol
import PhotometerVision
import TestSupport
import Testing

@testable import DigitReader

/// How a panel of reader trainings decides between their whole readings.
@Suite struct ReaderPanelTests {
  func reading(_ text: String, _ confidence: Double, symbol: String = "") -> EngineReading {
    EngineReading(
      text: text, confidence: confidence,
      symbols: [Symbol(text: symbol.isEmpty ? text : symbol, confidence: confidence)])
  }

  @Test func twoOfThreeOutvoteASurerThird() {
    let decided = ReaderPanel.decide([
      reading("1234", 0.6), reading("1284", 0.99), reading("1234", 0.8, symbol: "surest"),
    ])
    #expect(decided.text == "1234")
    // The surest of the agreeing readers gives the symbols, at the agreeing readers' mean confidence.
    #expect(decided.symbols.first?.text == "surest")
    #expect(abs(decided.confidence - 0.7) < 1e-9)
  }

  @Test func withNoMajorityTheSurestWins() {
    let decided = ReaderPanel.decide([reading("17", 0.5), reading("171", 0.9), reading("11", 0.7)])
    #expect(decided.text == "171")
    #expect(abs(decided.confidence - 0.9) < 1e-9)
  }

  @Test func readersThatAgreeKeepTheirConfidence() {
    let decided = ReaderPanel.decide([reading("36.7", 0.9), reading("36.7", 0.9), reading("36.7", 0.9)])
    #expect(decided.text == "36.7")
    #expect(abs(decided.confidence - 0.9) < 1e-9)
  }

  @Test func aMajorityOfTheWholePanelEndsTheReading() {
    #expect(ReaderPanel.holdsMajority([reading("530", 0.4), reading("530", 0.9)], of: 3))
    #expect(!ReaderPanel.holdsMajority([reading("530", 0.4), reading("580", 0.9)], of: 3))
    #expect(!ReaderPanel.holdsMajority([reading("530", 0.4), reading("530", 0.9)], of: 4))
    #expect(ReaderPanel.holdsMajority([reading("530", 0.4), reading("530", 0.9), reading("530", 0.5)], of: 4))
  }

  @Test func aPanelOfOneReadsAsItsMember() {
    let only = EngineReading(text: "00530", confidence: 0.42, symbols: [], missingExamples: ["a"])
    #expect(ReaderPanel.decide([only]) == only)
  }

  /// The bundled panel on rendered counters, each also with most of its lower or upper half
  /// hidden (digits the first network cannot be sure of): a reading it is sure of stands alone;
  /// an unsure one has the text all three networks decide, and is the first two's decision when
  /// they agree (the third is not asked), else all three's. A survey is the first's reading,
  /// refinable exactly when the others would be consulted, and the full reading made from it is
  /// the one made afresh.
  @Test func theBundledPanelIsConsultedOnlyWhenTheFirstIsUnsure() async throws {
    let folder = try await Rendered.digits("wheels", count: 20, seed: 214)
    try await onOwnThread {
      let panel = try ReaderPanel.bundled()
      #expect(panel.members.count == ReaderPanel.bundledModels.count)
      var (alone, consulted) = (0, 0)
      for row in try Rendered.rows(folder.appendingPathComponent("labels.csv")) {
        let whole = try VisionImage(decoding: [UInt8](try Data(contentsOf: folder.appendingPathComponent(row[0]))))
        for image in [whole, try Self.hidden(whole, rows: 0.4..<1), try Self.hidden(whole, rows: 0..<0.6)] {
          let first = try panel.members[0].read(image)
          let reading = try panel.read(image)
          let survey = try panel.survey(image)
          #expect(survey.reading == first && survey.refinable == (first.confidence < panel.consultBelow), "\(row[0])")
          #expect(try panel.read(image, first: survey.reading) == reading, "\(row[0])")
          if first.confidence >= panel.consultBelow {
            #expect(reading == first, "\(row[0])")
            alone += 1
          } else {
            let all = try panel.members.map { try $0.read(image) }
            #expect(reading.text == ReaderPanel.decide(all).text, "\(row[0])")
            let asked = all[0].text == all[1].text ? Array(all.prefix(2)) : all
            #expect(reading == ReaderPanel.decide(asked), "\(row[0])")
            consulted += 1
          }
        }
      }
      #expect(alone > 0 && consulted > 0, "\(alone) alone, \(consulted) consulted: the windows test one case only")
    }
  }

  /// The panel for rows found in a whole photo has the found-row training in its first member's
  /// place, the other members and every setting as bundled, and reads rendered seven-segment
  /// displays (DSEG7, a face no training draws), decimal points included.
  @Test func theFoundRowPanelReadsWithItsOwnFirstTraining() async throws {
    let folder = try await Rendered.digits("sevenseg", count: 20, seed: 215)
    try await onOwnThread {
      let bundled = try ReaderPanel.bundled()
      let found = try ReaderPanel.bundledForFoundRows()
      #expect(found.members.count == bundled.members.count && found.consultBelow == bundled.consultBelow)
      #expect(found.members[0].network.settings != bundled.members[0].network.settings)
      #expect(found.members[0].cellShare == bundled.members[0].cellShare)
      let others = zip(found.members.dropFirst(), bundled.members.dropFirst())
      #expect(others.allSatisfy { $0.network.settings == $1.network.settings })
      let rows = try Rendered.rows(folder.appendingPathComponent("labels.csv"))
      var right = 0
      for row in rows {
        let image = try VisionImage(decoding: [UInt8](try Data(contentsOf: folder.appendingPathComponent(row[0]))))
        right += try found.read(image).text == row[1] ? 1 : 0
      }
      #expect(right >= 18, "\(right) of \(rows.count) displays read right")
    }
  }

  /// `image` with the band `rows` (fractions of its height) painted mid-grey.
  static func hidden(_ image: VisionImage, rows: Range<Double>) throws -> VisionImage {
    var pixels = image.pixels
    let row = image.width * image.channels
    for index in Int(rows.lowerBound * Double(image.height)) * row..<Int(rows.upperBound * Double(image.height)) * row {
      pixels[index] = 128
    }
    return try VisionImage(pixels: pixels, width: image.width, height: image.height, channels: image.channels)
  }
}
