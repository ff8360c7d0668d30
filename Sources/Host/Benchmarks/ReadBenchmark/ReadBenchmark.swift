// photometer-benchmark-read: the reading evaluation. Each engine alone and their vote read every
// labelled digit window of each set, not told its digit count (with `--told`, told it too, in
// rows of their own); prints exact-match rate, per-digit accuracy, accuracy of the
// accepted values when the least confident 10% are rejected, the calibration error of the
// confidences (EngineScore.calibrationError) and time per strip. A fixed
// workload; the sets come from Tools/make-digits.py (see the README and docs/recognizers.md).
//
//   swift build -c release && .build/release/photometer-benchmark-read SET-DIR... [--told] [--tesseract-cli] [--show-errors]
//
// The vote weighs the engines as plugins.json does (`--plugins`); the other options run other
// trainings and settings of the sequence reader for comparing them (`--help` lists them).
import ArgumentParser
import DigitReader
import Foundation
import PluginSupervisor
import TesseractEngine

@main
struct ReadBenchmark: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "photometer-benchmark-read",
    abstract: "Each read engine alone and their vote on labelled digit windows, not told the digit count.")

  /// Tesseract's OpenMP is held to one thread before anything is parsed (it re-runs the program).
  static func main() {
    TesseractEngine.runSingleThreaded()
    main(nil)
  }

  @Argument(help: "Folders of labelled windows (labels.csv), from Tools/make-digits.py or make-validation-sets.py.")
  var sets: [String]

  @Flag(help: "Also read every window told its digit count, in rows of their own.")
  var told = false

  @Flag(help: "Also run the tesseract command line, for comparison with the engine.")
  var tesseractCli = false

  @Flag(help: "List every window the vote read wrong.")
  var showErrors = false

  @Option(help: ArgumentHelp("The vote's weights, as this plugins.json gives them.", valueName: "file"))
  var plugins = "plugins.json"

  @Option(help: ArgumentHelp("Write each engine's aligned digits, one JSON line each.", valueName: "file.jsonl"))
  var symbols: String?

  @Option(
    help: ArgumentHelp(
      "Write each window's reading confidence and exactness per engine (Tools/compare-readings.py "
        + "pairs two runs).", valueName: "file.jsonl"))
  var readings: String?

  @Option(
    help: ArgumentHelp(
      "Another training of the sequence reader (its settings in FILE.json); several vote on whole readings.",
      valueName: "file.onnx"))
  var readerModel: [String] = []

  @Option(help: "The first reader's confidence below which the others read and vote, 0 to 1 (1: always).")
  var consultBelow = ReaderPanel.defaultConsultBelow

  @Option(help: ArgumentHelp("Another cell classifier.", valueName: "file.onnx"))
  var cellModel: String?

  @Option(help: "The cell classifier's weight in the pool, 0 to 1 (0: the network alone).")
  var cellShare = SequenceReader.defaultCellShare

  @Option(help: "The pool's softmax temperature.")
  var poolTemperature = SequenceReader.defaultPoolTemperature

  @Option(help: "The reader's sureness above which a digit is not read again (1.01: every digit is).")
  var cellGate = SequenceReader.defaultCellGate

  @Option(
    help: ArgumentHelp(
      "The spans the classifier reads a digit from: shift and width in pitches.", valueName: "S:W,..."),
    transform: ReadBenchmark.cellViews)
  var cellViews: [CellView] = CellView.defaults

  @Option(help: ArgumentHelp("Another training asked about the digits the first doubts.", valueName: "file.onnx"))
  var secondCellModel: String?

  @Option(help: "The first classifier's sureness below which the second is asked (1.01: always).")
  var cellEscalation = SequenceReader.defaultEscalation

  @Flag(inversion: .prefixedNo, help: "Read a 0 or a 7 whose glyph closes a loop low in it as 6.")
  var loopCheck = true

  @Option(help: "The threads OpenCV may use, as the reader plugin's option.")
  var threads = ReaderNetwork.defaultThreads

  func validate() throws {
    guard (0...1).contains(cellShare) else { throw ValidationError("--cell-share takes a weight from 0 to 1") }
    guard (0...1).contains(consultBelow) else { throw ValidationError("--consult-below takes 0 to 1") }
    guard (1...64).contains(threads) else { throw ValidationError("--threads takes 1 to 64 threads") }
  }

  /// `S:W,S:W,...` (shift and width of each view, in pitches) as views.
  static func cellViews(_ text: String) throws -> [CellView] {
    try text.split(separator: ",").map { view in
      let parts = view.split(separator: ":").compactMap { Double($0) }
      guard parts.count == 2, parts[1] > 0 else {
        throw ValidationError("--cell-views: '\(view)' is not SHIFT:WIDTH with a positive width, e.g. -0.1:1")
      }
      return CellView(shift: parts[0], width: parts[1])
    }
  }

  func run() throws {
    let weights = try PluginConfiguration.votingWeights(contentsOf: plugins)
    ReaderNetwork.useThreads(threads)
    let file = { (path: String?) in path.map(URL.init(fileURLWithPath:)) }
    var evaluation = try Evaluation(
      weights: weights, withTesseractCommandLine: tesseractCli,
      readerModels: readerModel.map(URL.init(fileURLWithPath:)), consultBelow: consultBelow,
      cellModel: file(cellModel), cellShare: cellShare, poolTemperature: poolTemperature, cellGate: cellGate,
      cellViews: cellViews, secondCellModel: file(secondCellModel), escalation: cellEscalation,
      loopCheck: loopCheck)
    evaluation.showErrors = showErrors
    evaluation.told = told
    evaluation.symbols = symbols.flatMap(Self.created)
    evaluation.readings = readings.flatMap(Self.created)
    let shown = weights.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    print(
      "Read evaluation, \(ProcessInfo.processInfo.activeProcessorCount) cores, the reader's OpenCV on "
        + "\(threads) threads; weights \(shown)")
    print(Score.header)
    for directory in sets {
      for line in try evaluation.run(directory) {
        print(line)
      }
    }
  }

  /// A new, empty file at `path` to write to.
  static func created(_ path: String) -> FileHandle? {
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    return FileHandle(forWritingAtPath: path)
  }
}
