import DigitReader
import Foundation
import PhotometerProtocol
import PhotometerScoring
import PhotometerVision
import PhotometerVoting
import TesseractEngine

/// Runs the engines and the vote over one labelled set. Headline rows are blind: no engine is
/// told the digit count. With `told`, rows marked "told" give each engine the true digit count
/// (a meter's `--digits`) beside them. `reader` is the sequence reader; the vote is of the
/// engines plugins.json (or `--plugins FILE`) has voting, with its weights.
struct Evaluation {
  /// Each engine's weight in the vote, by plugin name, as plugins.json gives them.
  let weights: [String: Double]
  let reader: ReaderPanel
  let tesseract: TesseractEngine
  let tesseractCommandLine: Bool
  var told = false
  var showErrors = false
  /// Where to append, per digit an engine read, aligned with the true digits as the vote aligns
  /// readings, one JSON line: set, engine, its confidence (Tesseract's raw, before
  /// TesseractCalibration) and whether it is right (what Tools/calibrate-read.py fits on).
  var symbols: FileHandle?
  /// Where to append, per image and engine (the vote too), one JSON line (``ReadingLine``): set,
  /// file, engine, the reading and its confidence, the truth's digits and whether the reading is
  /// exact (what a calibration of whole readings fits on, and what Tools/compare-readings.py
  /// pairs and votes over).
  var readings: FileHandle?

  /// With `readerModels` (ONNX files with their settings beside them, `NAME.json`), the reader runs
  /// those trainings, voting below `consultBelow` (``ReaderPanel``), instead of the bundled ones;
  /// with `cellModel`, that cell classifier, pooled with `cellShare` (0: the reader's network
  /// alone); with `secondCellModel`, a second training asked below `escalation`.
  init(
    weights: [String: Double], withTesseractCommandLine: Bool, readerModels: [URL] = [],
    consultBelow: Double = ReaderPanel.defaultConsultBelow, cellModel: URL? = nil,
    cellShare: Double = SequenceReader.defaultCellShare,
    poolTemperature: Double = SequenceReader.defaultPoolTemperature, cellGate: Double = SequenceReader.defaultCellGate,
    cellViews: [CellView] = CellView.defaults, secondCellModel: URL? = nil,
    escalation: Double = SequenceReader.defaultEscalation, loopCheck: Bool = true
  ) throws {
    self.weights = weights
    let networks = try readerModels.isEmpty ? ReaderPanel.bundledNetworks() : readerModels.map(ReaderNetwork.init)
    let cells = try cellModel.map { try CellClassifier(model: $0) } ?? CellClassifier.bundled()
    let secondCells = try secondCellModel.map { try CellClassifier(model: $0) }
    reader = ReaderPanel(
      networks.map { network in
        SequenceReader(
          network: network, cells: cells, cellShare: cellShare, poolTemperature: poolTemperature, cellGate: cellGate,
          cellViews: cellViews, secondCells: secondCells, escalation: escalation, loopCheck: loopCheck)
      }, consultBelow: consultBelow)
    tesseract = try TesseractEngine()
    tesseractCommandLine = withTesseractCommandLine
  }

  /// One line of `readings`: a window's reading by one engine, and how it was judged.
  struct ReadingLine: Encodable {
    var set: String
    var file: String
    var engine: String
    var text: String
    var confidence: Double
    var digits: Int
    /// Per digit, what counts as right there (``LabelledImage/accepted``), and whether the truth
    /// judges decimal points: enough to judge another reading of the window the same way.
    var accepted: [String]
    var pointsLabelled: Bool
    var exact: Bool
  }

  private static let lineEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }()

  func run(_ directory: String) throws -> [String] {
    var scores: [String: Score] = [:]
    var repairs = RepairTally()
    // Windows with a wheel turning with the last, and the vote's readings naming them apart.
    var turning = (windows: 0, apart: 0)
    let name = URL(fileURLWithPath: directory).lastPathComponent
    func add(_ engine: String, _ labelled: LabelledImage, _ reading: EngineReading, _ time: Double) throws {
      scores[engine, default: Score()].add(
        labelled.accepted, labelled.judged(reading.text), reading.confidence, time)
      try record(engine, labelled, reading.text, reading.confidence)
    }
    // A line that cannot be encoded (a confidence that is no number) stops the run: a missing
    // line would unpair every comparison of the file.
    func record(_ engine: String, _ labelled: LabelledImage, _ text: String, _ confidence: Double) throws {
      guard let readings else { return }
      let line = ReadingLine(
        set: name, file: URL(fileURLWithPath: labelled.path).lastPathComponent, engine: engine, text: text,
        confidence: confidence, digits: labelled.accepted.count, accepted: labelled.accepted,
        pointsLabelled: labelled.pointsLabelled, exact: labelled.isRight(text))
      readings.write(try Self.lineEncoder.encode(line) + Data("\n".utf8))
    }
    for labelled in try LabelledSet.load(directory) {
      let (path, truth, accepted) = (labelled.path, labelled.text, labelled.accepted)
      let count = truth.filter(\.isNumber).count
      let image = try VisionImage(decoding: [UInt8](Data(contentsOf: URL(fileURLWithPath: path))))
      let (fromReader, readerTime) = try timed { try reader.read(image) }
      try add("reader", labelled, fromReader, readerTime)
      let (rawTesseract, tesseractTime) = try timed { try tesseract.read(image, calibrated: false) }
      var fromTesseract = TesseractCalibration.apply(to: rawTesseract)
      fromTesseract.text = fromTesseract.text.filter { $0.isNumber || $0 == "." }
      try add("tesseract", labelled, fromTesseract, tesseractTime)
      let engines = [
        ("reader", fromReader, readerTime), ("tesseract", fromTesseract, tesseractTime),
      ].filter { weights[$0.0] != nil }
      let (vote, voteTime) = timed {
        Self.namedAlike(ReadVote.decide(engines.map { answer($0.0, $0.1) }, weights: weights))
      }
      if let consistent = labelled.turnsTogether(vote.value) {
        turning.windows += 1
        turning.apart += consistent ? 0 : 1
      }
      scores["vote", default: Score()].add(
        accepted, labelled.judged(vote.value), vote.confidence, (engines.map(\.2).max() ?? 0) + voteTime)
      try record("vote", labelled, vote.value, vote.confidence)
      repairs.add(vote, labelled: labelled, index: scores["vote"]!.count)
      if told {
        let (toldReader, toldTime) = try timed { try reader.read(image, digits: count) }
        try add("reader told", labelled, toldReader, toldTime)
        let toldEngines = [("reader", toldReader), ("tesseract", fromTesseract)]
          .filter { weights[$0.0] != nil }
        let toldVote = Self.namedAlike(
          ReadVote.decide(toldEngines.map { answer($0.0, $0.1) }, weights: weights, expectedDigits: count))
        scores["vote told", default: Score()].add(
          accepted, labelled.judged(toldVote.value), toldVote.confidence, 0)
      }
      if let symbols {
        symbols.write(
          Data(symbolLines(set: directory, engine: "tesseract", reading: rawTesseract, accepted: accepted).utf8))
      }
      if showErrors && !labelled.isRight(vote.value) {
        print(
          "  \(URL(fileURLWithPath: path).lastPathComponent) truth \(truth): reader \(fromReader.text) "
            + "(\(String(format: "%.3f", fromReader.confidence))), tesseract \(fromTesseract.text), vote \(vote.value)")
      }
      if tesseractCommandLine {
        let (text, time) = try timed { try TesseractCommandLine.read(path) }
        scores["tesseract-cli", default: Score()].add(accepted, labelled.judged(text), 1, time)
      }
    }
    let engines = ["reader", "tesseract", "tesseract-cli", "vote", "reader told", "vote told"]
    return engines.compactMap { engine in scores[engine].map { $0.line(set: name, engine: engine) } }
      + [repairs.line(set: name)]
      + (turning.windows > 0
        ? [
          "  \(name): \(turning.windows) windows with a wheel turning with the last, \(turning.apart) read with "
            + "them on either side of the reading line (a power of ten off)"
        ] : [])
  }

  /// The vote as the host gives a meter without dials: its wheels turning with the last named alike.
  private static func namedAlike(_ vote: ReadVote.Outcome) -> ReadVote.Outcome {
    var vote = vote
    (vote.value, vote.digits) = TurningWheels.namedAlike(value: vote.value, digits: vote.digits)
    return vote
  }

  private func timed<T>(_ body: () throws -> T) rethrows -> (T, Double) {
    let started = ContinuousClock.now
    let result = try body()
    return (result, milliseconds(since: started))
  }

  /// One JSON line per digit of `reading` aligned with a true digit.
  private func symbolLines(set: String, engine: String, reading: EngineReading, accepted: [String]) -> String {
    let digits = ReadVote.digitSymbols(reading)
    let truth = accepted.map { Symbol(text: String($0.prefix(1)), confidence: 1) }
    let name = URL(fileURLWithPath: set).lastPathComponent
    return zip(ReadVote.align(digits, to: truth), accepted).compactMap { symbol, allowed in
      symbol.map {
        "{\"set\": \"\(name)\", \"engine\": \"\(engine)\", \"confidence\": \($0.confidence), "
          + "\"right\": \(allowed.contains($0.text))}\n"
      }
    }.joined()
  }

  private func answer(_ plugin: String, _ reading: EngineReading) -> EngineAnswer {
    EngineAnswer(plugin: plugin, version: "", outcome: .success(reading), milliseconds: 0, voted: true)
  }
}

/// The `tesseract` program with the plugin's settings, on the image as it is (the command line
/// does none of the plugin's preprocessing).
enum TesseractCommandLine {
  static func read(_ path: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/tesseract")
    process.arguments = [
      path, "stdout", "--psm", "7", "-c", "tessedit_char_whitelist=0123456789.", "-c", "load_system_dawg=0", "-c",
      "load_freq_dawg=0",
    ]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).filter { $0.isNumber || $0 == "." }
  }
}

func milliseconds(since start: ContinuousClock.Instant) -> Double {
  let elapsed = ContinuousClock.now - start
  return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
}

/// Plausibility repair on the vote, as if each strip were a counting meter whose last reading,
/// an hour ago, was 0 to 49 below the true value (at most 100 an hour).
struct RepairTally {
  var implausible = 0
  var repairedRight = 0
  var repairedWrong = 0
  var plausibleRight = 0
  var plausibleWrong = 0

  mutating func add(_ vote: ReadVote.Outcome, labelled: LabelledImage, index: Int) {
    let truth = labelled.text
    guard let value = Double(truth) else { return }
    let meter = Meter(
      name: "bench", kind: .water, unit: "m3", digits: truth.filter(\.isNumber).count, countsUp: true,
      maxRatePerHour: 100)
    let previous = StoredReading(
      id: 1, meter: "bench", value: "", numeric: max(0, value - Double(index % 50)), unit: "m3", takenAt: 0,
      recordedAt: 0, source: .manual)
    let rule = Plausibility(meter: meter, previous: previous, now: 3_600_000)
    if rule.allows(labelled.judged(vote.value)) {
      if labelled.isRight(vote.value) { plausibleRight += 1 } else { plausibleWrong += 1 }
      return
    }
    implausible += 1
    if let repaired = rule.repair(vote.digits) {
      if labelled.isRight(repaired.value) { repairedRight += 1 } else { repairedWrong += 1 }
    }
  }

  func line(set: String) -> String {
    "  \(set): plausibility (counting meter) - \(implausible) implausible votes: \(repairedRight) repaired right, "
      + "\(repairedWrong) repaired wrong, \(implausible - repairedRight - repairedWrong) left; "
      + "plausible votes \(plausibleRight) right, \(plausibleWrong) wrong, none changed"
  }
}
