// photometer-benchmark-read: the reading evaluation. Each engine alone and their vote read every
// labelled digit window of each set, not told its digit count (with `--told`, told it too, in
// rows of their own); prints exact-match rate, per-digit accuracy, accuracy of the
// accepted values when the least confident 10% are rejected, the calibration error of the
// confidences (EngineScore.calibrationError) and time per strip. A fixed
// workload; the sets come from Tools/make-digits.py (see the README and docs/recognizers.md).
//
//   swift build -c release && .build/release/photometer-benchmark-read SET-DIR... [--told] [--tesseract-cli] [--show-errors]
//
// The vote weighs the engines as plugins.json does (`--plugins FILE`, default the one in the
// current folder: the repository's when run from its root). `--reader-model FILE.onnx` runs
// another training of the sequence reader (its settings in FILE.json), `--cell-model FILE.onnx`
// another cell classifier, `--cell-share X` its weight in the pool (0: the network alone),
// `--pool-temperature T` the pool's softmax temperature, `--cell-gate P` the reader's
// sureness above which a digit is not read again (1.01: all are), `--cell-views S:W,...` the
// spans the classifier reads a digit from (shift and width in pitches; default 0:1),
// `--second-cell-model FILE.onnx` another training asked about the digits the first doubts and
// `--cell-escalation E` the first's sureness below which it is asked (1.01: always), for
// comparing trainings and settings;
// `--threads N` the threads OpenCV may use, as the reader plugin's option (default 2);
// `--readings FILE.jsonl` writes each image's reading confidence and exactness per engine.
import DigitReader
import Foundation
import PluginSupervisor
import TesseractEngine

TesseractEngine.runSingleThreaded()
let arguments = Array(CommandLine.arguments.dropFirst())
let valued = [
  "--plugins", "--symbols", "--reader-model", "--cell-model", "--cell-share", "--pool-temperature", "--cell-gate",
  "--cell-views", "--second-cell-model", "--cell-escalation", "--threads", "--readings",
]
let sets = arguments.indices.filter {
  !arguments[$0].hasPrefix("--") && ($0 == 0 || !valued.contains(arguments[$0 - 1]))
}
.map { arguments[$0] }
guard !sets.isEmpty else {
  FileHandle.standardError.write(
    Data(
      ("usage: photometer-benchmark-read SET-DIR... [--told] [--tesseract-cli] [--show-errors] [--plugins FILE]"
        + " [--symbols FILE.jsonl] [--reader-model FILE.onnx] [--cell-model FILE.onnx] [--cell-share X] [--pool-temperature T] [--cell-gate P]"
        + " [--cell-views S:W,...] [--second-cell-model FILE.onnx] [--cell-escalation E] [--threads N]"
        + " [--readings FILE.jsonl]\n")
        .utf8))
  exit(2)
}
struct BadViews: Error, CustomStringConvertible {
  var description: String
}
/// `S:W,S:W,...` (shift and width of each view, in pitches) as views.
func cellViews(_ text: String) throws -> [CellView] {
  try text.split(separator: ",").map { view in
    let parts = view.split(separator: ":").compactMap { Double($0) }
    guard parts.count == 2, parts[1] > 0 else {
      throw BadViews(description: "--cell-views: '\(view)' is not SHIFT:WIDTH with a positive width, e.g. -0.1:1")
    }
    return CellView(shift: parts[0], width: parts[1])
  }
}
do {
  let flag = arguments.firstIndex(of: "--plugins")
  let weights = try PluginConfiguration.votingWeights(
    contentsOf: flag.map { $0 + 1 < arguments.count ? arguments[$0 + 1] : "" } ?? "plugins.json")
  func value(_ flag: String) -> String? {
    arguments.firstIndex(of: flag).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
  }
  let threads = value("--threads").flatMap(Int.init) ?? ReaderNetwork.defaultThreads
  ReaderNetwork.useThreads(threads)
  var evaluation = try Evaluation(
    weights: weights, withTesseractCommandLine: arguments.contains("--tesseract-cli"),
    readerModel: value("--reader-model").map { URL(fileURLWithPath: $0) },
    cellModel: value("--cell-model").map { URL(fileURLWithPath: $0) },
    cellShare: value("--cell-share").flatMap(Double.init) ?? SequenceReader.defaultCellShare,
    poolTemperature: value("--pool-temperature").flatMap(Double.init) ?? SequenceReader.defaultPoolTemperature,
    cellGate: value("--cell-gate").flatMap(Double.init) ?? SequenceReader.defaultCellGate,
    cellViews: try value("--cell-views").map(cellViews) ?? CellView.defaults,
    secondCellModel: value("--second-cell-model").map { URL(fileURLWithPath: $0) },
    escalation: value("--cell-escalation").flatMap(Double.init) ?? SequenceReader.defaultEscalation)
  evaluation.showErrors = arguments.contains("--show-errors")
  evaluation.told = arguments.contains("--told")
  if let flag = arguments.firstIndex(of: "--symbols"), flag + 1 < arguments.count {
    _ = FileManager.default.createFile(atPath: arguments[flag + 1], contents: nil)
    evaluation.symbols = FileHandle(forWritingAtPath: arguments[flag + 1])
  }
  if let path = value("--readings") {
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    evaluation.readings = FileHandle(forWritingAtPath: path)
  }
  print(
    "Read evaluation, \(ProcessInfo.processInfo.activeProcessorCount) cores, the reader's OpenCV on \(threads) threads; weights \(weights.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))"
  )
  print(Score.header)
  for directory in sets {
    for line in try evaluation.run(directory) {
      print(line)
    }
  }
} catch {
  print("error: \(error)")
  exit(1)
}
