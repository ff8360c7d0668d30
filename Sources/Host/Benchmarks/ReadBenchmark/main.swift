// photometer-benchmark-read: the reading evaluation. Each engine alone and their vote read every
// labelled digit window of each set; prints exact-match rate, per-digit accuracy, accuracy of the
// accepted values when the least confident 10% are rejected, and time per strip. A fixed
// workload; the sets come from Tools/make-digits.py (see docs/reading.md).
//
//   swift build -c release && .build/release/photometer-benchmark-read SET-DIR... [--tesseract-cli] [--show-errors]
import Foundation
import TesseractEngine

TesseractEngine.runSingleThreaded()
let arguments = CommandLine.arguments.dropFirst()
let sets = arguments.filter { !$0.hasPrefix("--") }
guard !sets.isEmpty else {
  FileHandle.standardError.write(
    Data("usage: photometer-benchmark-read SET-DIR... [--tesseract-cli] [--show-errors]\n".utf8))
  exit(2)
}
do {
  var evaluation = try Evaluation(withTesseractCommandLine: arguments.contains("--tesseract-cli"))
  evaluation.showErrors = arguments.contains("--show-errors")
  print("Read evaluation, \(ProcessInfo.processInfo.activeProcessorCount) cores; weights \(Evaluation.weights)")
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
