import Foundation
import PhotometerProtocol
import PhotometerVision
import TestSupport
import Testing

@testable import DigitReader

/// The committed network, loaded as the plugin loads it, on windows of the rendering style it
/// never trained on (Tools/make-digits.py's DSEG7 displays and DejaVu counters), not told how
/// many digits they hold.
@Suite struct SequenceReaderTests {
  static let reader = Result { try SequenceReader.bundled() }

  /// The windows of a rendered set the reader reads exactly, and the set's size.
  func exactReads(_ kind: String, count: Int, seed: Int, extra: [String] = []) async throws -> (right: Int, of: Int) {
    let folder = try await Rendered.digits(kind, count: count, seed: seed, extra: extra)
    return try await onOwnThread {
      let reader = try Self.reader.get()
      var right = 0
      for row in try Rendered.rows(folder.appendingPathComponent("labels.csv")) {
        let image = try VisionImage(decoding: [UInt8](try Data(contentsOf: folder.appendingPathComponent(row[0]))))
        let reading = try reader.read(image)
        #expect(reading.symbols.map(\.text).joined() == reading.text)
        #expect((0...1).contains(reading.confidence))
        right += reading.text == row[1] ? 1 : 0
      }
      return (right, count)
    }
  }

  /// (The shipped network reads 22 of these 30; the floor guards against a broken load or
  /// decoding, not the accuracy goal, which the read benchmark measures.)
  @Test func readsSevenSegmentDisplaysWithTheirDecimalPoint() async throws {
    let result = try await exactReads("sevenseg", count: 30, seed: 211, extra: ["--points", "1"])
    #expect(result.right >= 20)
  }

  /// (17 of 30 with the shipped network.)
  @Test func readsWheelCountersWithoutBeingToldTheirLength() async throws {
    let result = try await exactReads("wheels", count: 30, seed: 212)
    #expect(result.right >= 15)
  }

  @Test func aDigitCountConstrainsTheReading() async throws {
    let folder = try await Rendered.digits("wheels", count: 6, seed: 213)
    try await onOwnThread {
      let reader = try Self.reader.get()
      for row in try Rendered.rows(folder.appendingPathComponent("labels.csv")) {
        let image = try VisionImage(decoding: [UInt8](try Data(contentsOf: folder.appendingPathComponent(row[0]))))
        for count in [row[1].count - 1, row[1].count, row[1].count + 1] {
          #expect(try reader.read(image, digits: count).text.count == count)
        }
      }
    }
  }

  /// A window 18 pixels wide at the network's height leaves half a column over: it is padded, not
  /// cut, so the last digit's right edge reaches the network.
  @Test func theWholeWindowReachesTheNetwork() throws {
    let network = try Self.reader.get().network
    for (width, columns) in [(36, 5), (40, 5), (42, 6)] {
      let image = try VisionImage(
        pixels: [UInt8](repeating: 128, count: width * 64), width: width, height: 64, channels: 1)
      #expect(try network.scores(image).columns == columns, "\(width) pixels wide")
    }
  }

  @Test func aWrongModelFileIsNamedInTheError() throws {
    let bogus = Scratch.folder.appendingPathComponent("not-a-model-\(UUID()).onnx")
    try Data("not onnx".utf8).write(to: bogus)
    defer { try? FileManager.default.removeItem(at: bogus) }
    do {
      _ = try ReaderNetwork(model: bogus, settings: bogus)
      Issue.record("a file that is not JSON loaded as settings")
    } catch {
      #expect(error.description.contains(bogus.path))
    }
  }
}

/// Real photos of wheels caught half-way from 3 to 4 (meterdigits labels them 3.5),
/// read one by one.
@Suite(
  .enabled(if: FileManager.default.fileExists(atPath: "\(Products.repository)/../shared/data/meterdigits/3.5"))
)
struct WheelRollTests {
  @Test func aWheelCaughtHalfWayReadsOneOfItsDigitsAndSaysSo() async throws {
    let folder = URL(fileURLWithPath: "\(Products.repository)/../shared/data/meterdigits/3.5")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().prefix(20)
    let readings = try await onOwnThread {
      let reader = try SequenceReaderTests.reader.get()
      return try names.map { name in
        try reader.read(VisionImage(decoding: [UInt8](Data(contentsOf: folder.appendingPathComponent(name)))))
      }
    }
    let rolling = readings.filter { $0.symbols.first?.roll?.from == "3" }
    #expect(rolling.count >= 14, "\(readings.map(\.text))")
    for reading in rolling {
      #expect(["3", "4"].contains(reading.text))
      #expect(reading.confidence <= WheelRoll.confidenceLimit)
      #expect(reading.symbols[0].alternatives.first?.text == (reading.text == "3" ? "4" : "3"))
      #expect((0.15...0.85).contains(reading.symbols[0].roll!.fraction))
    }
  }
}

/// Where the reader cuts each digit's cell for the cell classifier.
@Suite struct CellSpanTests {
  @Test func aRowsCellsAreAPitchWideJustLeftOfTheNetworksSurestColumns() {
    let spans = SequenceReader.cellSpans(peaks: [24, 44, 64, 85], width: 90, lead: 0.12)
    #expect(spans.count == 4)
    #expect(spans.allSatisfy { $0.count == 20 }, "\(spans)")
    #expect(spans[0] == 12..<32, "the pitch is the median step (20), the centre 0.12 of it left of 24")
    #expect(spans[3].upperBound > 90 - 20, "the last cell may run past the window's edge")
    // A network whose peaks lie half a pitch right of the digits' middles: cells move with them.
    #expect(SequenceReader.cellSpans(peaks: [24, 44, 64, 85], width: 90, lead: 0.5)[0] == 4..<24)
  }

  /// Settings written before the lead was fitted read as the shipped network's, 0.12.
  @Test func theLeadIsEachTrainingsOwn() throws {
    let decoder = JSONDecoder()
    let old = #"{"height": 32, "stride": 4, "classes": "-0123456789.", "temperature": 0.8}"#
    #expect(try decoder.decode(ReaderNetwork.Settings.self, from: Data(old.utf8)).peakLead == 0.12)
    let fitted = #"{"height": 32, "stride": 4, "classes": "-0123456789.", "temperature": 1.0, "peak_lead": 0.484}"#
    #expect(try decoder.decode(ReaderNetwork.Settings.self, from: Data(fitted.utf8)).peakLead == 0.484)
  }

  @Test func aWindowOfOneDigitIsItsCell() {
    #expect(SequenceReader.cellSpans(peaks: [7], width: 30, lead: 0.12) == [0..<30])
    #expect(SequenceReader.cellSpans(peaks: [], width: 30, lead: 0.12).isEmpty)
  }

  /// A view moves and widens every cell by fractions of the pitch; a window of one digit takes
  /// its width as the pitch.
  @Test func aViewMovesAndWidensCellsByThePitch() {
    let moved = SequenceReader.cellSpans(
      peaks: [24, 44, 64, 85], width: 90, lead: 0.12, view: CellView(shift: 0.1, width: 1.5))
    #expect(moved[0] == 9..<39, "centre 21.6 + 2, 30 wide")
    #expect(moved.allSatisfy { $0.count == 30 }, "\(moved)")
    #expect(SequenceReader.cellSpans(peaks: [7], width: 30, lead: 0.12, view: CellView(shift: -0.1)) == [-3..<27])
  }

  /// The views' opinions pool geometrically: agreeing views keep their digit, one view alone is
  /// unchanged, and the pool sums to one.
  @Test func viewsPoolGeometrically() {
    let sure = [0.05, 0.9, 0.05]
    #expect(SequenceReader.geometricMean([sure]) == sure)
    let pooled = SequenceReader.geometricMean([sure, [0.3, 0.6, 0.1]])
    #expect(abs(pooled.reduce(0, +) - 1) < 1e-12)
    #expect(pooled.indices.max { pooled[$0] < pooled[$1] } == 1)
    #expect(pooled[1] < 0.9 && pooled[1] > 0.6, "between the two views' \(pooled)")
  }

  /// The second classifier is asked about a digit when the first is unsure of it or reads it
  /// otherwise than the network, and only then.
  @Test func theSecondClassifierHearsOfTheDoubtedDigitsOnly() {
    let sureOne = [0.005, 0.995] + Array(repeating: 0.0, count: 8)
    let unsureOne = [0.1, 0.9] + Array(repeating: 0.0, count: 8)
    let opinions = [sureOne, unsureOne, sureOne, sureOne]
    #expect(SequenceReader.doubted(opinions, network: [1, 1, 0, nil], escalation: 0.99) == [1, 2, 3])
    #expect(SequenceReader.doubted(opinions, network: [1, 1, 1, 1], escalation: 0.8) == [])
    #expect(SequenceReader.doubted(opinions, network: [1, 1, 1, 1], escalation: 1.01) == [0, 1, 2, 3])
  }

  /// A second opinion from the same training changes no reading (the pool of two equal opinions
  /// is either), so the pair's plumbing reads as the classifier alone does.
  @Test func aClassifierPairedWithItselfReadsAsItDoesAlone() async throws {
    let folder = try await Rendered.digits("wheels", count: 8, seed: 214)
    try await onOwnThread {
      let alone = try SequenceReaderTests.reader.get()
      let paired = SequenceReader(
        network: alone.network, cells: alone.cells, secondCells: try CellClassifier.bundled(), escalation: 1.01)
      for row in try Rendered.rows(folder.appendingPathComponent("labels.csv")) {
        let image = try VisionImage(decoding: [UInt8](try Data(contentsOf: folder.appendingPathComponent(row[0]))))
        let (one, two) = (try alone.read(image), try paired.read(image))
        #expect(one.text == two.text)
        #expect(abs(one.confidence - two.confidence) < 1e-9, "\(one.confidence) against \(two.confidence)")
      }
    }
  }
}

/// The committed cell classifier, loaded as the plugin loads it, on settled meterdigits photos
/// read whole (each photo is one digit's cell).
@Suite(
  .enabled(if: FileManager.default.fileExists(atPath: "\(Products.repository)/../shared/data/meterdigits/0.0"))
)
struct CellClassifierTests {
  @Test func readsSettledDigitPhotos() async throws {
    let root = URL(fileURLWithPath: "\(Products.repository)/../shared/data/meterdigits")
    let (right, of) = try await onOwnThread {
      let cells = try CellClassifier.bundled()
      var right = 0
      var of = 0
      for digit in 0..<10 {
        let folder = root.appendingPathComponent("\(digit).0")
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().prefix(3) {
          let image = try VisionImage(decoding: [UInt8](Data(contentsOf: folder.appendingPathComponent(name))))
          let probabilities = try cells.probabilities(image, cells: [0..<image.width, -4..<(image.width + 4)])
          #expect(probabilities.count == 2)
          for cell in probabilities {
            #expect(cell.count == 10 && abs(cell.reduce(0, +) - 1) < 1e-6)
            right += cell.indices.max { cell[$0] < cell[$1] } == digit ? 1 : 0
            of += 1
          }
        }
      }
      return (right, of)
    }
    // (A floor against a broken load or preparation, not the accuracy goal.)
    #expect(right >= of * 8 / 10, "\(right) of \(of)")
  }

  @Test func aWrongModelFileIsNamedInTheError() throws {
    let bogus = Scratch.folder.appendingPathComponent("not-a-classifier-\(UUID()).onnx")
    try Data("not onnx".utf8).write(to: bogus)
    defer { try? FileManager.default.removeItem(at: bogus) }
    #expect {
      _ = try CellClassifier(model: bogus)
    } throws: { error in
      "\(error)".contains(bogus.path)
    }
  }
}
