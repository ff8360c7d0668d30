// photometer-benchmark-dials: the pointer dial reader on rendered water meters
// (Tools/make-dial-meters.py). Per set: the share of dials read within 0.2 of a division of the
// truth (and within 0.5), the mean error, and the time per dial (p50, p95) in this process; then
// whole meters, wheels and four dials as one value (DialChain), exact to the finest dial's digit,
// with the meters whose last wheel was caught mid-roll apart, beside the wheels alone.
//
//   swift build -c release --product photometer-benchmark-dials
//   .build/release/photometer-benchmark-dials SET-DIR... [--show-errors]
import DigitReader
import Foundation
import PhotometerVision

let arguments = Array(CommandLine.arguments.dropFirst())
let sets = arguments.filter { !$0.hasPrefix("--") }
guard !sets.isEmpty else {
  FileHandle.standardError.write(Data("usage: photometer-benchmark-dials SET-DIR... [--show-errors]\n".utf8))
  exit(2)
}
print("Dial evaluation, \(ProcessInfo.processInfo.activeProcessorCount) cores")
print("set | dials | within 0.2 | within 0.5 | mean error | p50 ms | p95 ms")
for set in sets {
  do {
    let score = try DialScore(set: URL(fileURLWithPath: set), showErrors: arguments.contains("--show-errors"))
    print(score.row(URL(fileURLWithPath: set).lastPathComponent))
  } catch {
    FileHandle.standardError.write(Data("\(set): \(error)\n".utf8))
    exit(1)
  }
}
print("set | meters | value exact | last wheel mid-roll | wheels alone exact")
do {
  let reader = try SequenceReader.bundled()
  for set in sets {
    let score = try CombinedScore(
      set: URL(fileURLWithPath: set), reader: reader, showErrors: arguments.contains("--show-errors"))
    print(score.row(URL(fileURLWithPath: set).lastPathComponent))
  }
} catch {
  FileHandle.standardError.write(Data("\(error)\n".utf8))
  exit(1)
}
