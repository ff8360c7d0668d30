import Foundation
import PhotometerProtocol
import PhotometerVision
import TestSupport
import Testing

@testable import DigitReader

/// A 0 or 7 whose glyph closes a 6's loop is read 6 (``SequenceReader/loopCheck``).
@Suite struct LoopCheckTests {
  /// A wheel's light 6 on dark, 40 x 64, its loop bright and its straight stem thin and fainter
  /// (as a blurred photo of DIN lettering shows it): the committed network alone reads a 0.
  static func thinStemmedSix() throws -> VisionImage {
    let (width, height) = (40, 64)
    var pixels = [UInt8](repeating: 30, count: width * height)
    for y in 0..<height {
      for x in 0..<width {
        let (px, py) = (Double(x), Double(y))
        let t = max(0, min(1, ((px - 10) * 18 + (py - 40) * -32) / (18 * 18 + 32 * 32)))
        let fromStem = hypot(px - 10 - 18 * t, py - 40 + 32 * t)
        let fromCentre = hypot(px - 20, py - 44)
        if fromCentre >= 6 && fromCentre <= 12 {
          pixels[y * width + x] = 230
        } else if fromStem <= 0.8 {
          pixels[y * width + x] = 180
        }
      }
    }
    return try VisionImage(pixels: pixels, width: width, height: height, channels: 1)
  }

  @Test func aSixTakenForAZeroIsReadSixByItsLoop() async throws {
    try await onOwnThread {
      let six = try Self.thinStemmedSix()
      let network = try ReaderNetwork.bundled()
      let cells = try CellClassifier.bundled()
      let unchecked = try SequenceReader(network: network, cells: cells, loopCheck: false).read(six)
      #expect(unchecked.text == "0", "the network alone; if it now reads 6, draw a harder 6")
      let checked = try SequenceReader(network: network, cells: cells).read(six)
      #expect(checked.text == "6")
      #expect(checked.confidence == unchecked.confidence, "the 6 takes the 0's probability")
    }
  }

  @Test func onlyOneLowWholeBowlStandingFreeIsASixsLoop() {
    typealias Loops = VisionImage.GlyphLoops
    #expect(SequenceReader.closesSixLoop(Loops(holes: 1, top: 0.55, bottom: 0.88, standsFree: true)))
    #expect(!SequenceReader.closesSixLoop(Loops(holes: 1, top: 0.15, bottom: 0.85, standsFree: true)), "a 0")
    #expect(!SequenceReader.closesSixLoop(Loops(holes: 0, top: 0, bottom: 0, standsFree: true)), "a 7")
    #expect(!SequenceReader.closesSixLoop(Loops(holes: 2, top: 0.1, bottom: 0.9, standsFree: true)), "an 8")
    #expect(!SequenceReader.closesSixLoop(Loops(holes: 1, top: 0.45, bottom: 0.52, standsFree: true)), "glare")
    #expect(!SequenceReader.closesSixLoop(Loops(holes: 1, top: 0.8, bottom: 0.98, standsFree: true)), "at its foot")
    #expect(!SequenceReader.closesSixLoop(Loops(holes: 1, top: 0.55, bottom: 0.88, standsFree: false)), "mid-roll")
  }

  /// The classifier learnt a wheel between 9 and 0 as shares of the two; a straight-stemmed 6
  /// the roll head also puts there spreads its shares over 0, 6, 7 and 8 (docs/recognizers.md,
  /// R112).
  @Test func aWheelBetweenNineAndZeroIsOneTheClassifierSplitsBetweenThem() {
    func shares(_ pairs: [Int: Double]) -> [Double] { (0..<10).map { pairs[$0] ?? 0 } }
    #expect(SequenceReader.showsNineToZero(shares([9: 0.5, 0: 0.49, 8: 0.01])))
    #expect(SequenceReader.showsNineToZero(shares([9: 0.37, 0: 0.62, 8: 0.01])))
    #expect(!SequenceReader.showsNineToZero(shares([0: 0.34, 6: 0.05, 7: 0.23, 8: 0.22, 9: 0.15])), "a 6")
    #expect(!SequenceReader.showsNineToZero(shares([0: 0.77, 1: 0.06, 6: 0.05, 7: 0.05, 8: 0.03, 9: 0.04])), "a 6")
    #expect(!SequenceReader.showsNineToZero([0.5, 0.5]), "no classifier's ten digits")
  }
}

/// The check on real photos of the training set: it leaves the 0s and 7s as the network reads them.
@Suite(
  .enabled(if: FileManager.default.fileExists(atPath: "\(Products.repository)/../shared/data/meterdigits/7.0"))
)
struct LoopCheckOnMeterdigitsTests {
  @Test func zerosAndSevensReadAsWithoutIt() async throws {
    let root = URL(fileURLWithPath: "\(Products.repository)/../shared/data/meterdigits")
    try await onOwnThread {
      let network = try ReaderNetwork.bundled()
      let cells = try CellClassifier.bundled()
      let checked = SequenceReader(network: network, cells: cells)
      let unchecked = SequenceReader(network: network, cells: cells, loopCheck: false)
      for label in ["0.0", "7.0"] {
        let folder = root.appendingPathComponent(label)
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().prefix(40) {
          let image = try VisionImage(decoding: [UInt8](Data(contentsOf: folder.appendingPathComponent(name))))
          #expect(try checked.read(image).text == unchecked.read(image).text, "\(label)/\(name)")
        }
      }
    }
  }
}
