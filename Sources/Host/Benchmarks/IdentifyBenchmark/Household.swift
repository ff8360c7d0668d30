import Foundation
import MeterMatchers
import PhotometerDigest
import PhotometerProtocol
import PhotometerVision
import PhotometerVoting

/// One rendered household: its registered meters and its labelled queries.
struct Household {
  struct Query {
    var file: String
    /// Empty for a meter that was never registered.
    var meter: String
  }

  let directory: URL
  /// Each named by its photo's file, which stands for its SHA-256 until ``run`` reads the photo.
  let references: [Reference]
  let queries: [Query]

  init(_ path: String) throws {
    directory = URL(fileURLWithPath: path)
    let meters = try csvRows(directory.appendingPathComponent("meters.csv"))
    references = meters.map { row in
      // The digit window, as a registered meter's reference carries it.
      let numbers = row[2...5].compactMap { Int32($0) }
      let roi = numbers.count == 4 ? Rect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3]) : nil
      return Reference(meter: row[0], image: Image(data: [], name: row[1]), sha256: row[1], roi: roi)
    }
    queries = try csvRows(directory.appendingPathComponent("queries.csv")).map { Query(file: $0[0], meter: $0[1]) }
  }

  /// - Parameters:
  ///   - weights: each plugin's weight in the vote, by name, as plugins.json gives them.
  ///   - features: where to append, per query, each matcher's best candidates as one JSON line
  ///     (what Tools/calibrate-identify fits the confidences on).
  func run(
    weights: [String: Double], verbose: Bool, features: FileHandle? = nil,
    settings: KeypointMatcher.Settings = KeypointMatcher.Settings()
  ) throws {
    var seed = HistogramMatcher(mode: .seed)
    var robust = HistogramMatcher(mode: .robust)
    let keypoints = KeypointMatcher(settings: settings)
    var references: [Reference] = []
    for var reference in self.references {
      let bytes = try [UInt8](Data(contentsOf: directory.appendingPathComponent(reference.image.name)))
      // With a cache the photo's own digest keys it, as the host's does: households of other
      // seeds reuse file names.
      if settings.cache != nil {
        reference.sha256 = SHA256Digest.hex(bytes)
      }
      references.append(reference)
      let image = try VisionImage(decoding: bytes, maxSide: settings.maxSide)
      try seed.learn(reference, image: image)
      try robust.learn(reference, image: image)
      if !keypoints.recall(reference) {
        try keypoints.learn(reference, image: image)
      }
    }
    guard !queries.isEmpty else {
      print("\(directory.lastPathComponent): \(references.count) references learnt, no queries in queries.csv")
      return
    }
    var tallies: [String: Tally] = [:]
    var decodeTimes: [Double] = []
    var voteTimes: [Double] = []
    let meters = Set(references.map(\.meter)).count
    for query in queries {
      let bytes = try [UInt8](Data(contentsOf: directory.appendingPathComponent(query.file)))
      var started = ContinuousClock.now
      let image = try VisionImage(decoding: bytes, maxSide: settings.maxSide)
      decodeTimes.append(milliseconds(since: started))

      started = ContinuousClock.now
      let seedRanking = try seed.rank(image, references: references)
      let seedTime = milliseconds(since: started)
      started = ContinuousClock.now
      let robustRanking = try robust.rank(image, references: references)
      let robustTime = milliseconds(since: started)
      started = ContinuousClock.now
      let keypointRanking = try keypoints.rank(image, references: references)
      let keypointTime = milliseconds(since: started)
      // Each vote timed with its rankings, as the host's is (the vote over 10,000 candidates
      // takes milliseconds).
      started = ContinuousClock.now
      let firstLook = Self.vote(robust: robustRanking, keypoints: keypointRanking, meters: meters, weights: weights)
      let voteTime = milliseconds(since: started)
      voteTimes.append(voteTime)
      started = ContinuousClock.now
      let vote = try Self.secondLook(
        after: firstLook, image, matchers: (robust, keypoints), references: references, weights: weights)
      let lookTime = milliseconds(since: started)

      tallies["histogram seed", default: Tally()].add(
        query, answer: seedRanking.first?.meter ?? "", accepted: true, ms: seedTime)
      tallies["histogram robust", default: Tally()].add(
        query, answer: robustRanking.first?.meter ?? "",
        accepted: (robustRanking.first?.confidence ?? 0) >= IdentifyVote.threshold, ms: robustTime)
      tallies["keypoints", default: Tally()].add(
        query, answer: keypointRanking.first?.meter ?? "",
        accepted: (keypointRanking.first?.confidence ?? 0) >= IdentifyVote.threshold, ms: keypointTime)
      // Without the second look: the vote as it was before it.
      tallies["vote, first look", default: Tally()].add(
        query, answer: firstLook.meter, accepted: !firstLook.meter.isEmpty,
        ms: robustTime + keypointTime + voteTime)
      tallies["vote", default: Tally()].add(
        query, answer: vote.meter, accepted: !vote.meter.isEmpty,
        ms: robustTime + keypointTime + voteTime + lookTime)
      // The vote's first candidate, sure or not: its top-1 counted as a matcher's is.
      tallies["vote ranking", default: Tally()].add(
        query, answer: vote.candidates.first?.meter ?? "", accepted: !vote.meter.isEmpty, ms: 0)
      if let features {
        let line: [String: Any] = [
          "set": directory.lastPathComponent, "references": references.count, "truth": query.meter,
          "histogram": robustRanking.prefix(5).map { [$0.meter, $0.score, $0.confidence] },
          "keypoints": keypointRanking.prefix(5).map { [$0.meter, $0.score, $0.confidence] },
        ]
        features.write(try JSONSerialization.data(withJSONObject: line, options: .sortedKeys) + Data("\n".utf8))
      }
      if verbose {
        let top = robustRanking.first
        let kp = keypointRanking.first
        print(
          "  \(query.file) truth=\(query.meter) robust=\(top?.meter ?? "-") \(fmt(top?.score ?? 0)) "
            + "c=\(fmt(top?.confidence ?? 0)) kp=\(kp?.meter ?? "-") \(Int(kp?.score ?? 0)) "
            + "second=\(Int(keypointRanking.dropFirst().first?.score ?? 0)) "
            // The right meter's keypoint score: "-" when it was not verified or not located.
            + "truth's=\(keypointRanking.first { $0.meter == query.meter }.map { String(Int($0.score)) } ?? "-") "
            + "vote=\(vote.meter) \(fmt(vote.confidence))")
      }
    }
    let name = directory.lastPathComponent
    let known = queries.filter { !$0.meter.isEmpty }.count
    for matcher in ["histogram seed", "histogram robust", "keypoints", "vote, first look", "vote"] {
      let tally = tallies[matcher]!
      print(
        pad(name, 19) + " " + pad("\(references.count)", 6) + " " + pad("\(known)", 6) + " "
          + pad("\(queries.count - known)", 7) + " | " + pad(matcher, 16) + " "
          + pad(percent(tally.correct, known), 7) + " " + pad(percent(tally.rejected, queries.count - known), 9)
          + " " + pad("\(fmt(percentile(tally.times, 0.5))) \(fmt(percentile(tally.times, 0.95)))", 19) + " "
          + fmt(percentile(decodeTimes, 0.5)))
    }
    print(Self.againstBestMatcher(tallies, known: known, unknown: queries.count - known))
    print(
      "  the vote's own time (the first look, once both rankings are in): "
        + "\(fmt(percentile(voteTimes, 0.5))) ms p50, \(fmt(percentile(voteTimes, 0.95))) ms p95")
  }

  /// The two matchers' rankings voted on, among `meters` meters, as the host votes on its plugins'.
  static func vote(
    robust: [Candidate], keypoints: [Candidate], meters: Int, weights: [String: Double]
  ) -> IdentifyResult {
    IdentifyVote.result(
      [
        PluginIdentification(plugin: "histogram", version: "", outcome: .success(robust), milliseconds: 0, voted: true),
        PluginIdentification(
          plugin: "keypoints", version: "", outcome: .success(keypoints), milliseconds: 0, voted: true),
      ], weights: weights, meters: meters)
  }

  /// `first` after the host's second look (`IdentifyVote.secondLookReferences(after:in:)`): both
  /// matchers rank the few meters it picks again.
  static func secondLook(
    after first: IdentifyResult, _ image: VisionImage, matchers: (robust: HistogramMatcher, keypoints: KeypointMatcher),
    references: [Reference], weights: [String: Double]
  ) throws -> IdentifyResult {
    let narrowed = IdentifyVote.secondLookReferences(after: first, in: references)
    guard !narrowed.isEmpty else { return first }
    let meters = Set(narrowed.map(\.meter)).count
    let second = vote(
      robust: try matchers.robust.rank(image, references: narrowed),
      keypoints: try matchers.keypoints.rank(image, references: narrowed), meters: meters, weights: weights)
    return IdentifyVote.afterSecondLook(first, second, looked: meters)
  }

  /// The rule the vote is held to: on every set, its top-1 at least the best single matcher's
  /// (a matcher's top-1 counts every meter it names first, sure or not; the vote's only those it
  /// accepts) and its unknown meters rejected at least as often. Beside it, the matchers' top-1
  /// counting only what they would accept alone, and the vote's counted as a matcher's is (its
  /// first candidate, sure or not).
  static func againstBestMatcher(_ tallies: [String: Tally], known: Int, unknown: Int) -> String {
    let matchers = ["histogram robust", "keypoints"]
    let vote = tallies["vote"]!
    let named = matchers.max { tallies[$0]!.correct < tallies[$1]!.correct }!
    let sure = matchers.max { tallies[$0]!.correctAccepted < tallies[$1]!.correctAccepted }!
    let rejecting = matchers.max { tallies[$0]!.rejected < tallies[$1]!.rejected }!
    let holds = vote.correct >= tallies[named]!.correct && vote.rejected >= tallies[rejecting]!.rejected
    let ranked = tallies["vote ranking"].map { percent($0.correct, known) } ?? "-"
    return "  vote against the best matcher: top-1 \(percent(vote.correct, known)) against \(named)'s "
      + "\(percent(tallies[named]!.correct, known)) named first (\(sure)'s \(percent(tallies[sure]!.correctAccepted, known)) "
      + "named and sure; the vote's first candidate, sure or not, \(ranked)); rejected \(percent(vote.rejected, unknown)) against \(rejecting)'s "
      + "\(percent(tallies[rejecting]!.rejected, unknown)): \(holds ? "holds" : "does not hold")"
  }
}

/// Outcomes of one matcher over a household's queries.
struct Tally {
  /// Known meters named first by the matcher (for the vote: named and accepted).
  var correct = 0
  /// Known meters named first and accepted.
  var correctAccepted = 0
  /// Unknown meters the matcher did not accept.
  var rejected = 0
  var times: [Double] = []

  mutating func add(_ query: Household.Query, answer: String, accepted: Bool, ms: Double) {
    if query.meter.isEmpty {
      rejected += accepted ? 0 : 1
    } else if answer == query.meter {
      correct += 1
      correctAccepted += accepted ? 1 : 0
    }
    times.append(ms)
  }
}

func csvRows(_ url: URL) throws -> [[String]] {
  let text = try String(contentsOf: url, encoding: .utf8)
  return text.split(whereSeparator: \.isNewline).dropFirst().map { line in
    line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
  }
}

func milliseconds(since start: ContinuousClock.Instant) -> Double {
  let elapsed = ContinuousClock.now - start
  return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
}

func percentile(_ values: [Double], _ fraction: Double) -> Double {
  guard !values.isEmpty else { return 0 }
  let sorted = values.sorted()
  return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction + 0.5))]
}

func percent(_ part: Int, _ whole: Int) -> String {
  whole == 0 ? "-" : String(format: "%.1f%%", 100 * Double(part) / Double(whole))
}

func fmt(_ value: Double) -> String {
  String(format: "%.2f", value)
}

func pad(_ text: String, _ width: Int) -> String {
  text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}
