import DigitReader
import Foundation
import PhotometerProtocol
import PhotometerVision
import TestSupport
import Testing

/// The committed row finder, loaded as the host loads it, on whole photos of devices drawn in
/// DSEG faces (Tools/make-device-photos.py), which it never trained on.
@Suite struct RowFinderTests {
  static let finder = Result { try RowFinder.bundled() }

  /// (The shipped network finds all 12; the floor guards against a broken load, input
  /// or cutting of rows, not the accuracy goal, which photometer-benchmark-find measures.)
  @Test func findsTheDisplaysDigitsAmongTheBestRows() async throws {
    let folder = try await Rendered.devicePhotos(count: 12, seed: 7)
    let labels = try Rendered.rows(folder.appendingPathComponent("labels.csv"))
    let found = try await onOwnThread {
      let finder = try Self.finder.get()
      return try labels.filter { label in
        let photo = try VisionImage(decoding: [UInt8](try Data(contentsOf: folder.appendingPathComponent(label[0]))))
        let truth = label[3].split(separator: " ").compactMap { Int32($0) }
        let rows = try finder.rows(in: photo, limit: 3)
        for row in rows {
          #expect(row.score > 0 && row.digits >= 1)
          #expect(row.corners[1].x > row.corners[0].x, "a row is read left to right: \(row.corners)")
        }
        return rows.contains {
          $0.box.overlap(with: Rect(x: truth[0], y: truth[1], width: truth[2], height: truth[3])) >= 0.5
        }
      }.count
    }
    #expect(found >= 8, "\(found) of \(labels.count)")
  }

  /// Both finders at once (the shipped search) give the rows of each finder alone, merged, the
  /// network's rows no component row matches measured again.
  @Test func bothFindersAtOnceMergeTheirRowsAlone() async throws {
    let folder = try await Rendered.devicePhotos(count: 4, seed: 8)
    let labels = try Rendered.rows(folder.appendingPathComponent("labels.csv"))
    try await onOwnThread {
      let finder = try Self.finder.get()
      for label in labels {
        let photo = try VisionImage(decoding: [UInt8](try Data(contentsOf: folder.appendingPathComponent(label[0]))))
        let components = try finder.rows(in: photo, limit: 4, finders: .components)
        let network = RowFinder.measured(try finder.rows(in: photo, limit: 4), besides: components, in: photo)
        let alone = RowFinder.merged(components, network, limit: 4)
        let both = try finder.rows(in: photo, limit: 4, finders: .both)
        #expect(both.map(\.box) == alone.map(\.box) && both.map(\.score) == alone.map(\.score), "\(label[0])")
        #expect(!both.isEmpty, "\(label[0]) should show a row for this test to mean anything")
      }
    }
  }

  /// One search at 8 rows a finder gives, cut to 4, the rows a search at 4 gives (the host searches
  /// a photo once for both), for every kind of finder.
  @Test func oneSearchServesASmallerLimit() async throws {
    let folder = try await Rendered.devicePhotos(count: 3, seed: 4, kind: "blood-pressure")
    let labels = try Rendered.rows(folder.appendingPathComponent("labels.csv"))
    let most = try await onOwnThread {
      let finder = try Self.finder.get()
      var most = 0
      for label in labels {
        let photo = try VisionImage(decoding: [UInt8](try Data(contentsOf: folder.appendingPathComponent(label[0]))))
        for finders in RowFinder.Finders.allCases {
          let wide = try finder.found(in: photo, limit: 8, finders: finders)
          for limit in [4, 8] {
            let alone = try finder.rows(in: photo, limit: limit, finders: finders)
            let cut = wide.rows(limit: limit)
            #expect(cut.map(\.box) == alone.map(\.box), "\(label[0]) \(finders) \(limit)")
            #expect(cut.map(\.score) == alone.map(\.score), "\(label[0]) \(finders) \(limit)")
          }
          most = max(most, wide.rows(limit: 8).count)
        }
      }
      return most
    }
    #expect(most > 4, "a photo should show more than 4 rows for the cut to mean anything")
  }

  /// A plain grey photo holds no row; a grey one-channel photo goes in as well as a colour one.
  @Test func aBlankPhotoHoldsNoRow() throws {
    let finder = try Self.finder.get()
    let blank = try VisionImage(pixels: [UInt8](repeating: 128, count: 320 * 240), width: 320, height: 240, channels: 1)
    #expect(try finder.rows(in: blank, limit: 3).isEmpty)
  }

  /// Rows of the two finders that are the same row count once, with the measured row's box and
  /// the better score; rows apart are all kept, best first, up to the limit.
  @Test func mergedRowsCountARowFoundTwiceOnce() {
    func row(x: Float, y: Float, score: Double) -> VisionImage.DigitRow {
      VisionImage.DigitRow(
        digitCorners: [(x, y), (x + 120, y), (x + 120, y + 30), (x, y + 30)], score: score, width: 640, height: 480)
    }
    let components = [row(x: 100, y: 100, score: 50), row(x: 100, y: 300, score: 20)]
    let network = [row(x: 104, y: 102, score: 60), row(x: 400, y: 40, score: 30)]
    let merged = RowFinder.merged(components, network, limit: 3)
    #expect(merged.map(\.score) == [60, 30, 20])
    #expect(merged[0].box == components[0].box)
    #expect(RowFinder.merged(components, network, limit: 8).count == 3)
  }

  /// A measured row that holds a found one and as much again besides (a brand label grouped with
  /// the digits' top) is another row: both are kept, so that both are read.
  @Test func aMeasuredRowTwiceTheSizeOfAFoundOneIsAnotherRow() {
    func row(x: Float, y: Float, height: Float, score: Double) -> VisionImage.DigitRow {
      VisionImage.DigitRow(
        digitCorners: [(x, y), (x + 120, y), (x + 120, y + height), (x, y + height)], score: score, width: 640,
        height: 480)
    }
    let labelAndDigits = row(x: 100, y: 60, height: 60, score: 80)
    let digits = row(x: 100, y: 95, height: 25, score: 40)
    #expect(labelAndDigits.box.overlapArea(with: digits.box) > 0.5 * digits.box.area)
    let merged = RowFinder.merged([labelAndDigits], [digits], limit: 3)
    #expect(merged.map(\.score) == [80, 40])
    #expect(merged[1].box == digits.box)
  }

  /// A found row the same as a measured one whose digits reach half a digit's height or more past
  /// its end (room for a digit the components left out: 38 of 338) is kept apart, and both are
  /// read; one reaching less far, or a measured row reaching past a found one, is the same row.
  @Test func aFoundRowReachingPastAMeasuredOneIsKeptApart() {
    func row(from left: Float, to right: Float, score: Double) -> VisionImage.DigitRow {
      VisionImage.DigitRow(
        digitCorners: [(left, 100), (right, 100), (right, 140), (left, 140)], score: score, width: 640, height: 480)
    }
    let measured = row(from: 140, to: 220, score: 50)
    let longer = row(from: 100, to: 220, score: 60)
    #expect(measured.box.overlap(with: longer.box) > 0.5, "the two rows are the same row by their boxes")
    let merged = RowFinder.merged([measured], [longer], limit: 4)
    #expect(merged.map(\.box) == [longer.box, measured.box])
    #expect(merged.map(\.score) == [60, 50])

    let almost = row(from: 130, to: 225, score: 60)
    #expect(RowFinder.merged([measured], [almost], limit: 4).map(\.box) == [measured.box])
    let shorter = row(from: 160, to: 220, score: 60)
    #expect(RowFinder.merged([longer], [shorter], limit: 4).map(\.box) == [longer.box])
  }

  /// A row made from its digits' corners has the margins of the connected-component finder's
  /// rows: a third of the digits' height above and below, 0.8 of it at either end.
  @Test func aRowFromItsDigitsCarriesTheFindersMargins() {
    let digits: [(x: Float, y: Float)] = [(100, 100), (220, 100), (220, 130), (100, 130)]
    let row = VisionImage.DigitRow(digitCorners: digits, score: 1, width: 640, height: 480)
    #expect(row.corners[0].x == 76 && row.corners[0].y == 90)
    #expect(row.corners[2].x == 244 && row.corners[2].y == 140)
    #expect(row.box == Rect(x: 90, y: 90, width: 140, height: 50))
    #expect(row.digits == 6)
    #expect(abs(row.digitHeight - 30) < 1e-3)
  }

  /// A row at a photo's edge has its box inside the photo, as the window stored for a meter
  /// must be (a strip whose digits fill its height once got a window taller than the strip).
  @Test func aRowAtThePhotosEdgeHasItsBoxInside() {
    let digits: [(x: Float, y: Float)] = [(300, -4), (600, -4), (600, 190), (300, 190)]
    let row = VisionImage.DigitRow(digitCorners: digits, score: 1, width: 618, height: 184)
    #expect(row.box.x >= 0 && row.box.y >= 0)
    #expect(row.box.x + row.box.width <= 618 && row.box.y + row.box.height <= 184, "\(row.box)")
    let outside: [(x: Float, y: Float)] = [(700, 300), (800, 300), (800, 330), (700, 330)]
    let beyond = VisionImage.DigitRow(digitCorners: outside, score: 1, width: 618, height: 184)
    #expect(beyond.box.width >= 1 && beyond.box.x + beyond.box.width <= 618, "\(beyond.box)")
  }
}
