import CDigitReader
import Foundation
import PhotometerVision
import Synchronization

/// The row finder (an ONNX file run by OpenCV's dnn module, trained by Tools/train-row-finder.py):
/// rows of digits in a whole photo, found by a network that marks each row's core, for reading a
/// device without a window. It finds rows the connected-component finder
/// (``PhotometerVision/VisionImage/digitRows(limit:)``) misses: light digits on dark bodies,
/// digits joined to a frame or to print, rows turned further.
public final class RowFinder: @unchecked Sendable {
  // Safe to share: pm_rows_find serialises the forward passes.
  private let pointer: OpaquePointer
  /// The photo's longer side as the network takes it, and the network's output stride.
  public static let longSide = 320
  public static let stride = 4
  /// The least score (sigmoid of the network's output) of a cell for it to belong to a row's
  /// core. Training weighs a core cell 4 times, which turns a chance p into 4p / (3p + 1): 0.8
  /// is an even chance. (At 0.5 the cores come out half as thick again, and so the rows.)
  public static let threshold: Float = 0.8

  /// Loads `model` (ONNX).
  public init(model: URL) throws(ReaderError) {
    var result: OpaquePointer?
    guard pm_rows_load(model.path, Int32(Self.longSide), Int32(Self.stride), &result) == PM_READER_OK, let result
    else {
      throw ReaderError("cannot load the row finder \(model.path): \(String(cString: pm_reader_last_error()))")
    }
    pointer = result
  }

  deinit {
    pm_rows_free(pointer)
  }

  /// The row finder that ships with the reader.
  public static func bundled() throws(ReaderError) -> RowFinder {
    try RowFinder(model: try bundledResource("row-finder.onnx", "the row finder"))
  }

  /// The rows of digits in `photo`, surest first, at most `limit`, with the margins of the
  /// connected-component finder's rows.
  public func rows(in photo: VisionImage, limit: Int) throws(ReaderError) -> [VisionImage.DigitRow] {
    let size = max(limit, 0)
    var corners = [Float](repeating: 0, count: 8 * size)
    var scores = [Float](repeating: 0, count: size)
    var count: Int32 = 0
    let input = try PhotoInput.of(photo)
    let status = pm_rows_find(pointer, input.pointer, Self.threshold, Int32(size), &corners, &scores, &count)
    guard status == PM_READER_OK else {
      throw ReaderError("the row finder failed: \(String(cString: pm_reader_last_error()))")
    }
    return (0..<Int(count)).map { index in
      // Scored as the connected-component finder scores its rows (digits, up to 8, times their
      // height), times how sure the network is of the row, so that the two finders' rows compare.
      var row = VisionImage.DigitRow(
        digitCorners: (0..<4).map { (corners[8 * index + 2 * $0], corners[8 * index + 2 * $0 + 1]) }, score: 0,
        width: photo.width, height: photo.height)
      row.score = Self.prominence(of: row) * Double(scores[index])
      return row
    }
  }
}

extension RowFinder {
  /// Which finders a whole photo's rows come from.
  public enum Finders: String, Sendable, CaseIterable {
    /// Connected components only (``PhotometerVision/VisionImage/digitRows(limit:)``).
    case components
    /// The network only.
    case network
    /// Both, their rows in one list (``merged(_:_:limit:)``).
    case both

    /// The finders the host searches whole photos with, and the find benchmark by default
    /// (docs/recognizers.md, *A learnt row finder*).
    public static let shipped = Finders.both
  }

  /// The rows of both finders in one list, best score first, at most `limit`. A row of
  /// `measured` and one of `found` whose boxes overlap by more than half their union are the same
  /// row: it keeps the measured row's geometry and digits, taken from the ink pixel by pixel where
  /// the network's come from a map at a quarter of its input, with the better of the two scores.
  /// A measured box that holds a found one and much besides (a brand label grouped with the top of
  /// the digits below it) is another row, and both are read; so is a found row whose digits reach
  /// past the measured row's (``reachesPast(_:_:)``), kept beside it (R175).
  public static func merged(
    _ measured: [VisionImage.DigitRow], _ found: [VisionImage.DigitRow], limit: Int
  ) -> [VisionImage.DigitRow] {
    var rows = measured
    var apart: [VisionImage.DigitRow] = []
    for row in found {
      guard let index = rows.firstIndex(where: { isSame($0, row) }) else {
        rows.append(row)
        continue
      }
      if reachesPast(row, rows[index]) {
        apart.append(row)
      } else {
        rows[index].score = max(rows[index].score, row.score)
      }
    }
    // A found row apart stays beside the rows it reaches past, and they beside it.
    var kept: [(row: VisionImage.DigitRow, apart: Bool)] = []
    let all = rows.map { (row: $0, apart: false) } + apart.map { (row: $0, apart: true) }
    for next in all.sorted(by: { $0.row.score > $1.row.score }) where kept.count < limit {
      let repeated = kept.contains { taken in
        isSame(taken.row, next.row) && !(next.apart && reachesPast(next.row, taken.row))
          && !(taken.apart && reachesPast(taken.row, next.row))
      }
      if !repeated { kept.append(next) }
    }
    return kept.map(\.row)
  }

  /// Whether two rows, one from each finder, are the same row: their boxes overlap by more than
  /// half their union.
  static func isSame(_ a: VisionImage.DigitRow, _ b: VisionImage.DigitRow) -> Bool {
    a.box.overlap(with: b.box) > 0.5
  }

  /// A row's score before the finder's sureness of it, as the connected-component finder scores
  /// its rows: digits, up to 8, times their height.
  static func prominence(of row: VisionImage.DigitRow) -> Double {
    Double(min(row.digits, 8)) * row.digitHeight
  }

  /// Whether `row`'s digits reach past either end of `other`'s by half a digit's height or more:
  /// room for a digit `other` left out (the components split a seven-segment 3, its segments
  /// apart, from the digits beside it: 38 for 338).
  static func reachesPast(_ row: VisionImage.DigitRow, _ other: VisionImage.DigitRow) -> Bool {
    let (a, b) = (row.digitBox, other.digitBox)
    let room = Int32((other.digitHeight / 2).rounded())
    return a.x <= b.x - room || a.x + a.width >= b.x + b.width + room
  }

  /// `found`, the network's rows in `photo`, each that no row of `measured` matches
  /// (``isSame(_:_:)``) with the digits the connected-component finder measures around it
  /// (``PhotometerVision/VisionImage/measuredRow(around:)``) and the score it would have had with
  /// them; a row as it is where they find none. A matched row takes the
  /// component row's geometry when the two are merged (``merged(_:_:limit:)``). The network
  /// measures a row by a map at a quarter of 320 pixels: a small display's digits came out as
  /// their lower half, and the crop read lost their tops (docs/recognizers.md, R200).
  public static func measured(
    _ found: [VisionImage.DigitRow], besides measured: [VisionImage.DigitRow], in photo: VisionImage
  ) -> [VisionImage.DigitRow] {
    found.map { row in
      guard !measured.contains(where: { isSame($0, row) }), var again = photo.measuredRow(around: row) else {
        return row
      }
      again.score = row.score / prominence(of: row) * prominence(of: again)  // the same sureness
      return again
    }
  }

  /// The rows `finders` find in `photo`, at most `limit`. Both finders run at once, the
  /// components on a second thread while the network runs (R65 in docs/recognizers.md).
  public func rows(in photo: VisionImage, limit: Int, finders: Finders) throws -> [VisionImage.DigitRow] {
    try found(in: photo, limit: limit, finders: finders).rows(limit: limit)
  }

  /// What `finders` find in `photo`, at most `limit` rows a finder, kept apart so that one search
  /// serves any smaller limit (``FoundRows/rows(limit:)``).
  public func found(in photo: VisionImage, limit: Int, finders: Finders) throws -> FoundRows {
    switch finders {
    case .components: return FoundRows(measured: try photo.digitRows(limit: limit), found: [], finders: finders)
    case .network:
      return FoundRows(
        measured: [], found: Self.measured(try rows(in: photo, limit: limit), besides: [], in: photo), finders: finders)
    case .both:
      let found = Mutex<[Result<[VisionImage.DigitRow], any Error>?]>([nil, nil])
      DispatchQueue.concurrentPerform(iterations: 2) { finder in
        let rows = Result { () throws -> [VisionImage.DigitRow] in
          finder == 0 ? try photo.digitRows(limit: limit) : try self.rows(in: photo, limit: limit)
        }
        found.withLock { $0[finder] = rows }
      }
      let (components, network) = found.withLock { ($0[0]!, $0[1]!) }
      let measured = try components.get()
      return FoundRows(
        measured: measured, found: Self.measured(try network.get(), besides: measured, in: photo), finders: finders)
    }
  }
}

/// Each finder's rows of one search, best first. Each finder's first n rows are the rows it gives
/// when asked for n, so the rows of a search at one limit serve every smaller one.
public struct FoundRows: Sendable {
  /// The connected-component finder's rows (empty when it did not search).
  public var measured: [VisionImage.DigitRow]
  /// The network's rows, those no component row matches measured again
  /// (``RowFinder/measured(_:besides:in:)``); empty when it did not search.
  public var found: [VisionImage.DigitRow]
  public var finders: RowFinder.Finders

  public init(measured: [VisionImage.DigitRow], found: [VisionImage.DigitRow], finders: RowFinder.Finders) {
    self.measured = measured
    self.found = found
    self.finders = finders
  }

  /// The rows a search at `limit` gives (``RowFinder/merged(_:_:limit:)`` when both finders
  /// searched); `limit` no more than the search's own.
  public func rows(limit: Int) -> [VisionImage.DigitRow] {
    switch finders {
    case .components: return Array(measured.prefix(limit))
    case .network: return Array(found.prefix(limit))
    case .both: return RowFinder.merged(Array(measured.prefix(limit)), Array(found.prefix(limit)), limit: limit)
    }
  }
}
