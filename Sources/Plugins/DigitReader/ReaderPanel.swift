import Foundation
import PhotometerProtocol
import PhotometerVision

/// Several trainings of the sequence reader voting on whole readings: each reads the window, and
/// the reading most of them give wins, else the surest. One training's draw errs on its own
/// windows, so where two of three agree they are far likelier right (docs/recognizers.md, *Three
/// readers voting, looked at*). A panel of one reads as its member does.
public struct ReaderPanel: Sendable {
  public let members: [SequenceReader]

  /// The names of the networks that ship with the plugin (`NAME.onnx`, `NAME.json`), in the
  /// order they join the panel.
  public static let bundledModels = ["digit-reader"]

  /// A panel of `members`, at least one.
  public init(_ members: [SequenceReader]) {
    precondition(!members.isEmpty, "a reader panel needs a member")
    self.members = members
  }

  /// The panel that ships with the plugin: each bundled network with the bundled classifier.
  public static func bundled() throws(ReaderError) -> ReaderPanel {
    let cells = try CellClassifier.bundled()
    return ReaderPanel(try bundledNetworks().map { SequenceReader(network: $0, cells: cells) })
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

  /// Every member's reading of the window (``SequenceReader/read(_:digits:memory:)``), decided
  /// by ``decide(_:)``. The members read at once, each on a thread of its own (three narrow ones
  /// take about 2.5 times the shipped reader's time on 2 cores: docs/recognizers.md).
  public func read(_ image: VisionImage, digits: Int = 0, memory: DigitMemory = DigitMemory()) throws(ReaderError)
    -> EngineReading
  {
    guard members.count > 1 else { return try members[0].read(image, digits: digits, memory: memory) }
    let results = Results(count: members.count)
    DispatchQueue.concurrentPerform(iterations: members.count) { index in
      results.set(
        index, Result { () throws(ReaderError) in try members[index].read(image, digits: digits, memory: memory) })
    }
    var readings: [EngineReading] = []
    for result in results.all {
      readings.append(try result.get())
    }
    return Self.decide(readings)
  }

  /// The members' results, each written once by its own thread.
  private final class Results: @unchecked Sendable {
    private var results: [Result<EngineReading, ReaderError>?]
    private let lock = NSLock()

    init(count: Int) {
      results = Array(repeating: nil, count: count)
    }

    func set(_ index: Int, _ result: Result<EngineReading, ReaderError>) {
      lock.withLock { results[index] = result }
    }

    var all: [Result<EngineReading, ReaderError>] {
      lock.withLock { results.map { $0! } }
    }
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
