// photometer-benchmark-identify: top-1 accuracy, unknown-meter rejection and time per query of
// the identify matchers and their vote, on households rendered by Tools/make-households.py.
// A fixed workload; prints its figures. Decoding is timed apart: the goals are for matching.
//
//   Tools/make-households.py /tmp/varied --set varied --meters 100 --queries 2 --unknown 50
//   swift build -c release && .build/release/photometer-benchmark-identify /tmp/varied [more sets...]
//
// The vote weighs the plugins as plugins.json does (`--plugins FILE`, default the one in the
// current folder: the repository's when run from its root).
import Foundation
import MeterMatchers
import PhotometerProtocol
import PhotometerVision
import PhotometerVoting
import PluginSupervisor

let arguments = Array(CommandLine.arguments.dropFirst())
let valued: Set<String> = ["--features", "--plugins", "--tilted-features", "--threads", "--verify"]
let sets = arguments.indices.filter {
  !arguments[$0].hasPrefix("--") && ($0 == 0 || !valued.contains(arguments[$0 - 1]))
}
.map { arguments[$0] }
guard !sets.isEmpty else {
  FileHandle.standardError.write(
    Data(
      ("usage: photometer-benchmark-identify HOUSEHOLD-DIR... [--verbose] [--features FILE.jsonl] [--plugins FILE]"
        + " [--tilted-features N] [--threads N] [--verify N]\n").utf8))
  exit(2)
}
let verbose = CommandLine.arguments.contains("--verbose")
var features: FileHandle?
if let flag = CommandLine.arguments.firstIndex(of: "--features"), flag + 1 < CommandLine.arguments.count {
  let path = CommandLine.arguments[flag + 1]
  _ = FileManager.default.createFile(atPath: path, contents: nil)
  features = FileHandle(forWritingAtPath: path)
}

var settings = KeypointMatcher.Settings()
if let flag = arguments.firstIndex(of: "--tilted-features") {
  guard flag + 1 < arguments.count, let count = Int(arguments[flag + 1]), count >= 0 else {
    print("error: --tilted-features takes a count of keypoints, 0 or more")
    exit(2)
  }
  settings.tiltedFeatures = count
}
if let flag = arguments.firstIndex(of: "--threads") {
  guard flag + 1 < arguments.count, let count = Int(arguments[flag + 1]), (1...16).contains(count) else {
    print("error: --threads takes a number of threads from 1 to 16 (the keypoint matcher's query)")
    exit(2)
  }
  settings.threads = count
}
if let flag = arguments.firstIndex(of: "--verify") {
  guard flag + 1 < arguments.count, let count = Int(arguments[flag + 1]), (1...100).contains(count) else {
    print("error: --verify takes how many shortlisted references a query verifies, 1 to 100")
    exit(2)
  }
  settings.verify = count
}

let weights: [String: Double]
do {
  let flag = arguments.firstIndex(of: "--plugins")
  weights = try PluginConfiguration.votingWeights(
    contentsOf: flag.map { $0 + 1 < arguments.count ? arguments[$0 + 1] : "" } ?? "plugins.json")
} catch {
  print("error: \(error)")
  exit(1)
}

print(
  "Identify benchmark, \(ProcessInfo.processInfo.activeProcessorCount) cores, keypoint queries on \(settings.threads) threads verifying \(settings.verify); weights \(weights.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))"
)
print(
  "set                 meters  known unknown | matcher          top-1   rejected  ms/query (p50 p95)  decode ms")
for directory in sets {
  do {
    try Household(directory).run(weights: weights, verbose: verbose, features: features, settings: settings)
  } catch {
    print("\(directory): \(error)")
    exit(1)
  }
}
