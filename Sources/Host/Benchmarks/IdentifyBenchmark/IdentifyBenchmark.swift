// photometer-benchmark-identify: top-1 accuracy, unknown-meter rejection and time per query of
// the identify matchers and their vote, on households rendered by Tools/make-households.py.
// A fixed workload; prints its figures. Decoding is timed apart: the goals are for matching.
//
//   Tools/make-households.py /tmp/varied --set varied --meters 100 --queries 2 --unknown 50
//   swift build -c release && .build/release/photometer-benchmark-identify /tmp/varied [more sets...]
//
// The vote weighs the plugins as plugins.json does (`--plugins FILE`, default the one in the
// current folder: the repository's when run from its root).
import ArgumentParser
import Foundation
import MeterMatchers
import PhotometerProtocol
import PhotometerVision
import PhotometerVoting
import PluginSupervisor

@main
struct IdentifyBenchmark: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "photometer-benchmark-identify",
    abstract: "Top-1, unknown meters rejected and time per query of each identify matcher and their vote.")

  @Argument(help: "Folders of rendered households (meters.csv, queries.csv).")
  var households: [String]

  @Flag(help: "Print every query's matchers' answers and the vote's.")
  var verbose = false

  @Option(
    help: ArgumentHelp(
      "Write each query's matchers' best candidates, one JSON line each (for Tools/calibrate-identify.py).",
      valueName: "file.jsonl"))
  var features: String?

  @Option(help: ArgumentHelp("The vote's weights, as this plugins.json gives them.", valueName: "file"))
  var plugins = "plugins.json"

  @Option(help: "Keypoints of each tilted view of a reference, 0 or more.")
  var tiltedFeatures = KeypointMatcher.Settings().tiltedFeatures

  @Option(help: "Threads a keypoint query shares, 1 to 16.")
  var threads = KeypointMatcher.Settings().threads

  @Option(help: "How many shortlisted references a keypoint query verifies, 1 to 100.")
  var verify = KeypointMatcher.Settings().verify

  @Option(
    help: ArgumentHelp(
      "Keep the references' keypoints in this folder and read them back in later runs, as the plugin "
        + "does (its `cache` option): a 10,000-meter household then starts in about a minute, not eight.",
      valueName: "folder"))
  var cache: String?

  func validate() throws {
    guard tiltedFeatures >= 0 else { throw ValidationError("--tilted-features takes 0 or more keypoints") }
    guard (1...16).contains(threads) else { throw ValidationError("--threads takes 1 to 16 threads") }
    guard (1...100).contains(verify) else { throw ValidationError("--verify takes 1 to 100 references") }
  }

  func run() throws {
    var settings = KeypointMatcher.Settings()
    settings.tiltedFeatures = tiltedFeatures
    settings.threads = threads
    settings.verify = verify
    if let cache {
      try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
      settings.cache = URL(fileURLWithPath: cache)
    }
    let weights = try PluginConfiguration.votingWeights(contentsOf: plugins)
    var written: FileHandle?
    if let features {
      _ = FileManager.default.createFile(atPath: features, contents: nil)
      written = FileHandle(forWritingAtPath: features)
    }
    let shown = weights.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    print(
      "Identify benchmark, \(ProcessInfo.processInfo.activeProcessorCount) cores, keypoint queries on "
        + "\(settings.threads) threads verifying \(settings.verify); weights \(shown)")
    print(
      "set                 meters  known unknown | matcher          top-1   rejected  ms/query (p50 p95)  decode ms")
    for directory in households {
      try Household(directory).run(weights: weights, verbose: verbose, features: written, settings: settings)
    }
  }
}
