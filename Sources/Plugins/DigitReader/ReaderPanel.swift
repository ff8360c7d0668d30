import PhotometerProtocol
import PhotometerVision

/// Several trainings of the sequence reader voting on whole readings. The first reads alone; when
/// its reading is less sure than ``consultBelow``, the others read in turn until one reading holds
/// a majority, and the reading most of them give wins, else the surest. One training's draw errs
/// on its own windows, so where two of three agree they are likelier right, and a sure first
/// reading rarely needs them (docs/recognizers.md, *The panel consulted when unsure*). A panel of
/// one reads as its member does.
public struct ReaderPanel: Sendable {
  public let members: [SequenceReader]
  /// The first member's confidence below which the others are asked and vote; 1: they always are
  /// (the third still only when the first two differ).
  public let consultBelow: Double

  /// The names of the networks that ship with the plugin (`NAME.onnx`, `NAME.json`), in the
  /// order they join the panel: the shipped reader first, then a training with bitmap faces for
  /// half its displays and the shipped recipe's second seed.
  public static let bundledModels = ["digit-reader", "digit-reader-bitmap", "digit-reader-seed-2"]

  /// The network that ships for rows the host found in a whole photo (``ReadRequest/foundRow``):
  /// the shipped recipe with half its seven-segment displays drawn as a crop of a device shows
  /// them, a frame, a unit or a smaller row beside the digits (docs/recognizers.md, R188). It
  /// reads such rows in the first member's place (``replacingFirst(with:)``); a window given to
  /// the plugin reads better with the shipped first member (R187).
  public static let foundRowModel = "digit-reader-context"

  /// The shipped ``consultBelow``, picked on the development sets (R57 in docs/recognizers.md):
  /// it sends about half of real windows to the vote and keeps the median strip's time within
  /// 1.3 times the first member's alone.
  public static let defaultConsultBelow = 0.8

  /// A panel of `members`, at least one, the first read alone when it is at least `consultBelow`
  /// sure.
  public init(_ members: [SequenceReader], consultBelow: Double = defaultConsultBelow) {
    precondition(!members.isEmpty, "a reader panel needs a member")
    self.members = members
    self.consultBelow = consultBelow
  }

  /// The panel that ships with the plugin: each bundled network with the bundled classifier.
  public static func bundled() throws(ReaderError) -> ReaderPanel {
    let cells = try CellClassifier.bundled()
    return ReaderPanel(try bundledNetworks().map { SequenceReader(network: $0, cells: cells) })
  }

  /// The panel that ships for rows found in a whole photo: ``bundled()`` with the
  /// ``foundRowModel`` in its first member's place.
  public static func bundledForFoundRows() throws(ReaderError) -> ReaderPanel {
    try bundled().replacingFirst(with: try ReaderNetwork.bundled(foundRowModel))
  }

  /// This panel with `network` reading in its first member's place, with that member's classifier
  /// and settings; the other members as they are.
  public func replacingFirst(with network: ReaderNetwork) -> ReaderPanel {
    ReaderPanel([members[0].replacingNetwork(with: network)] + members.dropFirst(), consultBelow: consultBelow)
  }

  /// The networks that ship with the plugin (``bundledModels``).
  public static func bundledNetworks() throws(ReaderError) -> [ReaderNetwork] {
    try bundledModels.map { name throws(ReaderError) in try ReaderNetwork.bundled(name) }
  }

  /// The weight of a meter's ``DigitMemory`` in a digit's pool (the members share one classifier,
  /// so one memory serves them all).
  public var memoryShare: Double { members[0].memoryShare }

  /// What a confirmed reading teaches, as the first member sees the window.
  public func memory(of image: VisionImage, confirmed value: String) throws(ReaderError) -> DigitMemory {
    try members[0].memory(of: image, confirmed: value)
  }

  /// The first member's reading of the window (``SequenceReader/read(_:digits:memory:)``), or,
  /// when it is less sure than ``consultBelow``, the others' in turn until one text holds a
  /// majority of the whole panel (of three: the first and the second agreeing spare the third),
  /// decided by ``decide(_:)`` over the readings made. The text is the one all members would
  /// decide; the third's time is spent only where the first two differ (R59 in
  /// docs/recognizers.md).
  ///
  /// `first`: the first member's reading of this window and these settings, when a ``survey``
  /// made it already.
  public func read(
    _ image: VisionImage, digits: Int = 0, memory: DigitMemory = DigitMemory(), first surveyed: EngineReading? = nil
  ) throws(ReaderError) -> EngineReading {
    let first: EngineReading
    if let surveyed {
      first = surveyed
    } else {
      first = try members[0].read(image, digits: digits, memory: memory)
    }
    guard consults(after: first) else { return first }
    var readings = [first]
    for member in members.dropFirst() {
      readings.append(try member.read(image, digits: digits, memory: memory))
      if Self.holdsMajority(readings, of: members.count) {
        break
      }
    }
    return Self.decide(readings)
  }

  /// The first member's reading alone, to compare the rows found in a whole photo: the others'
  /// agreement would lift rows that only look like digits above the read rows (R60 in
  /// docs/recognizers.md). `refinable`: ``read(_:digits:memory:first:)`` would consult the others,
  /// so its reading may differ.
  public func survey(_ image: VisionImage, digits: Int = 0, memory: DigitMemory = DigitMemory()) throws(ReaderError)
    -> (reading: EngineReading, refinable: Bool)
  {
    let first = try members[0].read(image, digits: digits, memory: memory)
    return (first, consults(after: first))
  }

  /// Whether one text among `readings` has more than half of a panel of `size` members, so that
  /// the members yet to read cannot change the decided text.
  static func holdsMajority(_ readings: [EngineReading], of size: Int) -> Bool {
    let counts = Dictionary(grouping: readings, by: \.text).values.map(\.count)
    return 2 * (counts.max() ?? 0) > size
  }

  /// Whether the other members read after the first gave `first`.
  public func consults(after first: EngineReading) -> Bool {
    members.count > 1 && (consultBelow >= 1 || first.confidence < consultBelow)
  }

  /// The text the most readings give (a tie: the one whose readers are surer in sum), as its
  /// surest reader read it (symbols, alternatives, rolls), at the mean confidence of the readers
  /// that give it (counting a reader that read otherwise as 0 was underconfident on the
  /// development sets: docs/recognizers.md).
  public static func decide(_ readings: [EngineReading]) -> EngineReading {
    guard readings.count > 1 else { return readings[0] }
    let texts = Dictionary(grouping: readings, by: \.text)
    let (_, agreeing) = texts.max { first, second in
      (first.value.count, first.value.map(\.confidence).reduce(0, +))
        < (second.value.count, second.value.map(\.confidence).reduce(0, +))
    }!
    var decided = agreeing.max { $0.confidence < $1.confidence }!
    decided.confidence = agreeing.map(\.confidence).reduce(0, +) / Double(agreeing.count)
    return decided
  }
}
