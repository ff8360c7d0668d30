import CDigitReader
import Foundation
import PhotometerProtocol
import PhotometerVision

/// The orientation finder (an ONNX file run by OpenCV's dnn module, trained by
/// Tools/train-orientation.py): which way a whole photo's rows of digits stand, so that a photo
/// that lost its EXIF orientation (an editor, a screenshot, a messenger) is turned upright before
/// its rows are looked for. The row finders and the readers know upright digits only, and read a
/// turned row wrong and sure (docs/recognizers.md, *Photos turned without their EXIF orientation*).
public final class OrientationFinder: @unchecked Sendable {
  // Safe to share: pm_turns_find serialises the forward passes.
  private let pointer: OpaquePointer
  /// The photo's longer side as the network takes it: the row finder's.
  public static let longSide = RowFinder.longSide
  /// The share of the turns' summed chance the likeliest turn must hold more than for a photo to
  /// be turned (Tools/train-orientation.py `TRUSTED_SHARE`); below it the photo stays as it came.
  public static let trustedShare: Float = 0.5
  /// The least summed chance of the turns for a photo to be turned: one cell's worth, a row is
  /// there (Tools/train-orientation.py `LEAST_MASS`).
  public static let leastMass: Float = 1
  /// How many times upright digits' chance a box must hold of a turn's to stand turned: an
  /// upright display the network half doubts holds about as much of either (R176). More than 1,
  /// so a box standing turned holds more of the turn than of upright digits.
  public static let turnedOverUpright: Float = 1.5

  /// Loads `model` (ONNX).
  public init(model: URL) throws(ReaderError) {
    var result: OpaquePointer?
    guard pm_turns_load(model.path, Int32(Self.longSide), &result) == PM_READER_OK, let result else {
      throw ReaderError(
        "cannot load the orientation finder \(model.path): \(String(cString: pm_reader_last_error()))")
    }
    pointer = result
  }

  deinit {
    pm_turns_free(pointer)
  }

  /// The orientation finder that ships with the reader.
  public static func bundled() throws(ReaderError) -> OrientationFinder {
    try OrientationFinder(model: try bundledResource("orientation.onnx", "the orientation finder"))
  }

  /// The map of `photo`: which way the digits stand, a cell each 8 pixels of the network's input.
  public func map(of photo: VisionImage) throws(ReaderError) -> TurnMap {
    // The input's longer side is `longSide` rounded to 16, its shorter at least 16: at most
    // (longSide / 8 + 2) cells a side.
    let side = Self.longSide / 8 + 2
    var chances = [Float](repeating: 0, count: 4 * side * side)
    var (mapWidth, mapHeight): (Int32, Int32) = (0, 0)
    let input = try PhotoInput.of(photo)
    let status = pm_turns_find(pointer, input.pointer, &chances, Int32(chances.count), &mapWidth, &mapHeight)
    guard status == PM_READER_OK else {
      throw ReaderError("the orientation finder failed: \(String(cString: pm_reader_last_error()))")
    }
    let cells = Int(mapWidth) * Int(mapHeight)
    return TurnMap(
      width: Int(mapWidth), height: Int(mapHeight), photoWidth: photo.width, photoHeight: photo.height,
      chances: Array(chances[..<(4 * cells)]))
  }
}

/// The orientation finder's map of a photo: each cell's chance of a row's core whose digits stand
/// turned 0, 1, 2 or 3 quarter turns clockwise (the rest is background).
public struct TurnMap: Sendable {
  /// The map's size in cells.
  public let width: Int
  public let height: Int
  /// The photo's size in pixels.
  public let photoWidth: Int
  public let photoHeight: Int
  /// `chances[k * width * height + y * width + x]`: cell (x, y)'s chance of digits turned k.
  public let chances: [Float]
  /// How many quarter turns clockwise the photo's digits stand: the likeliest turn when the turns'
  /// summed chance is at least ``OrientationFinder/leastMass`` and it holds more than
  /// ``OrientationFinder/trustedShare`` of it, else 0 (a photo without a clear row stays as it came).
  public private(set) var quarterTurns = 0

  public init(width: Int, height: Int, photoWidth: Int, photoHeight: Int, chances: [Float]) {
    precondition(chances.count == 4 * width * height, "a turn map holds 4 chances a cell")
    (self.width, self.height, self.photoWidth, self.photoHeight) = (width, height, photoWidth, photoHeight)
    self.chances = chances
    let masses = masses()
    let total = masses.reduce(0, +)
    guard total >= OrientationFinder.leastMass, let best = masses.indices.max(by: { masses[$0] < masses[$1] }),
      masses[best] > OrientationFinder.trustedShare * total
    else { return }
    quarterTurns = best
  }

  /// Each quarter turn's chance summed over the cells whose centres lie in `box` (the photo's
  /// pixels), or over the whole map: element k for digits standing k quarter turns clockwise.
  public func masses(within box: Rect? = nil) -> [Float] {
    let cells = width * height
    var masses = [Float](repeating: 0, count: 4)
    guard cells > 0 else { return masses }
    let (cellWidth, cellHeight) = (Double(photoWidth) / Double(width), Double(photoHeight) / Double(height))
    for y in 0..<height {
      let centreY = (Double(y) + 0.5) * cellHeight
      if let box, centreY < Double(box.y) || centreY >= Double(box.y + box.height) { continue }
      for x in 0..<width {
        let centreX = (Double(x) + 0.5) * cellWidth
        if let box, centreX < Double(box.x) || centreX >= Double(box.x + box.width) { continue }
        for k in 0..<4 { masses[k] += chances[k * cells + y * width + x] }
      }
    }
    return masses
  }

  /// Whether the digits in `box` (the photo's pixels) stand `quarterTurns` turned rather than
  /// upright: the cells there hold at least ``OrientationFinder/leastMass`` of that turn's chance,
  /// and ``OrientationFinder/turnedOverUpright`` times upright digits' or more.
  public func stands(_ quarterTurns: Int, within box: Rect) -> Bool {
    let masses = masses(within: box)
    let turn = (quarterTurns % 4 + 4) % 4
    return masses[turn] >= OrientationFinder.leastMass
      && masses[turn] >= OrientationFinder.turnedOverUpright * masses[0]
  }

  /// Whether the search of the photo turned by this map's ``quarterTurns`` is taken over the
  /// search as it came: its row (`turned`, in the photo's pixels as it came) read more surely than
  /// the row as it came (`asCame`), or, for a photo upside down, where the row as it came stands
  /// turned on the map (R176). A half-turned photo's surer reading counts only where its own row
  /// stands turned as well: a seven-segment 266 upright reads 992 turned, as surely (R203).
  public func takesTurned(asCame: Rect?, turned: Rect?, surer: Bool) -> Bool {
    guard quarterTurns == 2 else { return surer }
    let asCameStands = asCame.map { stands(2, within: $0) } ?? false
    let turnedStands = turned.map { stands(2, within: $0) } ?? false
    return asCameStands || (surer && turnedStands)
  }
}
