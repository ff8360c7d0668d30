import DigitReader
import Foundation
import PhotometerProtocol
import PhotometerVision
import TestSupport
import Testing

/// The committed orientation finder, loaded as the host loads it, on whole photos of devices drawn
/// in DSEG faces (Tools/make-device-photos.py), which it never trained on, turned every way.
@Suite struct OrientationFinderTests {
  static let finder = Result { try OrientationFinder.bundled() }

  /// Each photo turned 0, 1, 2 and 3 quarter turns clockwise is named at that turn, and its
  /// display's box on the map stands at that turn (upright, it stands at no other). (The floors
  /// guard against a broken load, input or reading of the map; photometer-benchmark-find
  /// measures the accuracy through the host.)
  @Test func namesTheTurnOfEachPhoto() async throws {
    let folder = try await Rendered.devicePhotos(count: 6, seed: 7)
    let labels = try Rendered.rows(folder.appendingPathComponent("labels.csv"))
    let (named, standing) = try await onOwnThread {
      let finder = try Self.finder.get()
      var (named, standing) = (0, 0)
      for label in labels {
        let photo = try VisionImage(decoding: [UInt8](try Data(contentsOf: folder.appendingPathComponent(label[0]))))
        let truth = label[3].split(separator: " ").compactMap { Int32($0) }
        try #require(truth.count == 4, "\(label[0]): a box of 4 numbers")
        let box = Rect(x: truth[0], y: truth[1], width: truth[2], height: truth[3])
        for turns in 0..<4 {
          let turned = try photo.turned(quarterTurns: turns)
          let map = try finder.map(of: turned)
          #expect(map.width * 8 >= 320 || map.height * 8 >= 320, "\(label[0]): a map of \(map.width) x \(map.height)")
          let masses = map.masses()
          #expect(masses.allSatisfy { $0 >= 0 } && masses.reduce(0, +) > 1, "\(label[0]) at \(turns): \(masses)")
          named += map.quarterTurns == turns ? 1 : 0
          let display = box.turned(quarterTurns: turns, width: Int32(photo.width), height: Int32(photo.height))
          let stands =
            turns == 0 ? !(1..<4).contains { map.stands($0, within: display) } : map.stands(turns, within: display)
          standing += stands ? 1 : 0
        }
      }
      return (named, standing)
    }
    #expect(named >= 20, "\(named) of \(4 * labels.count) named")
    #expect(standing >= 20, "\(standing) of \(4 * labels.count) displays standing at their turn")
  }

  /// A map's masses count the cells whose centres lie in a box, in the photo's pixels; a box
  /// stands at a turn when that turn holds a cell's worth there and more than upright digits do.
  @Test func aBoxStandsAtTheTurnItsCellsHold() {
    // 4 x 2 cells over a 40 x 20 photo: the left half upside down, the right half upright.
    var chances = [Float](repeating: 0, count: 4 * 8)
    for y in 0..<2 {
      for x in 0..<4 { chances[(x < 2 ? 2 : 0) * 8 + y * 4 + x] = 0.9 }
    }
    let map = TurnMap(width: 4, height: 2, photoWidth: 40, photoHeight: 20, chances: chances)
    #expect(map.masses() == [3.6, 0, 3.6, 0])
    let left = Rect(x: 0, y: 0, width: 20, height: 20)
    #expect(map.masses(within: left) == [0, 0, 3.6, 0])
    #expect(map.stands(2, within: left) && map.stands(-2, within: left))
    #expect(!map.stands(1, within: left))
    #expect(!map.stands(2, within: Rect(x: 20, y: 0, width: 20, height: 20)))
    // One cell's centre (15, 5) inside: 0.9, less than a cell's worth.
    #expect(!map.stands(2, within: Rect(x: 12, y: 0, width: 6, height: 8)))
    // Equal upright and upside down: no majority, the whole map stays as it came.
    #expect(map.quarterTurns == 0)
  }

  /// A box whose cells hold a turn's chance but not ``OrientationFinder/turnedOverUpright``
  /// times upright digits' does not stand turned: an upright display the network half doubts
  /// (R176).
  @Test func aBoxHalfDoubtedStandsAsItCame() {
    // 4 x 2 cells over a 40 x 20 photo: the left half 0.6 upside down and 0.5 upright.
    var chances = [Float](repeating: 0, count: 4 * 8)
    for y in 0..<2 {
      for x in 0..<2 {
        chances[2 * 8 + y * 4 + x] = 0.6
        chances[y * 4 + x] = 0.5
      }
    }
    let map = TurnMap(width: 4, height: 2, photoWidth: 40, photoHeight: 20, chances: chances)
    let left = Rect(x: 0, y: 0, width: 20, height: 20)
    let masses = map.masses(within: left)
    #expect(masses[2] >= OrientationFinder.leastMass && masses[2] > masses[0], "\(masses)")
    #expect(!map.stands(2, within: left))
  }

  /// A photo the map names upside down is read turned where the row read as it came stands
  /// turned (R176), or where the turned search reads surer and its own row stands turned; a surer
  /// turned reading of a row the map holds upright is no reason (a seven-segment 266 reads 992
  /// turned, R203).
  @Test func aHalfTurnedSearchIsTakenWhereTheMapHoldsTurnedDigits() {
    // 4 x 2 cells over a 40 x 20 photo: three columns upside down, the last upright.
    var chances = [Float](repeating: 0, count: 4 * 8)
    for y in 0..<2 {
      for x in 0..<4 { chances[(x < 3 ? 2 : 0) * 8 + y * 4 + x] = 0.9 }
    }
    let map = TurnMap(width: 4, height: 2, photoWidth: 40, photoHeight: 20, chances: chances)
    #expect(map.quarterTurns == 2)
    let turned = Rect(x: 0, y: 0, width: 20, height: 20), upright = Rect(x: 30, y: 0, width: 10, height: 20)
    #expect(map.takesTurned(asCame: upright, turned: turned, surer: true))
    #expect(!map.takesTurned(asCame: upright, turned: turned, surer: false))
    #expect(!map.takesTurned(asCame: upright, turned: upright, surer: true))
    #expect(map.takesTurned(asCame: turned, turned: turned, surer: false))
    #expect(!map.takesTurned(asCame: nil, turned: nil, surer: true))
  }

  /// A plain grey photo shows no digits: it is left as it came.
  @Test func aBlankPhotoStaysAsItCame() throws {
    let finder = try Self.finder.get()
    let blank = try VisionImage(pixels: [UInt8](repeating: 128, count: 320 * 240), width: 320, height: 240, channels: 1)
    #expect(try finder.map(of: blank).quarterTurns == 0)
  }
}
