// photometer-benchmark-identify: top-1 accuracy, unknown-meter rejection and time per query of
// the identify matchers and their vote, on households rendered by Tools/make-households.py.
// A fixed workload; prints its figures. Decoding is timed apart: the goals are for matching.
//
//   Tools/make-households.py /tmp/varied --set varied --meters 100 --queries 2 --unknown 50
//   swift build -c release && .build/release/photometer-benchmark-identify /tmp/varied [more sets...]
import Foundation
import MeterMatchers
import PhotometerProtocol
import PhotometerVision
import PhotometerVoting

let arguments = Array(CommandLine.arguments.dropFirst())
let sets = arguments.indices.filter { !arguments[$0].hasPrefix("--") && ($0 == 0 || arguments[$0 - 1] != "--features") }
  .map { arguments[$0] }
guard !sets.isEmpty else {
  FileHandle.standardError.write(
    Data("usage: photometer-benchmark-identify HOUSEHOLD-DIR... [--verbose] [--features FILE.jsonl]\n".utf8))
  exit(2)
}
let verbose = CommandLine.arguments.contains("--verbose")
var features: FileHandle?
if let flag = CommandLine.arguments.firstIndex(of: "--features"), flag + 1 < CommandLine.arguments.count {
  let path = CommandLine.arguments[flag + 1]
  _ = FileManager.default.createFile(atPath: path, contents: nil)
  features = FileHandle(forWritingAtPath: path)
}

print("Identify benchmark, \(ProcessInfo.processInfo.activeProcessorCount) cores")
print(
  "set                 meters  known unknown | matcher          top-1   rejected  ms/query (p50 p95)  decode ms")
for directory in sets {
  do {
    try Household(directory).run(verbose: verbose, features: features)
  } catch {
    print("\(directory): \(error)")
    exit(1)
  }
}
