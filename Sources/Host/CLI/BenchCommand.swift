import ArgumentParser
import ChildProcess
import Foundation
import PhotometerCharts
import PhotometerClient
import PhotometerImages
import PhotometerProtocol
import PhotometerScoring

/// `photometer bench DIR`: every read engine and their vote on a labelled folder of images, in the
/// table people compare OCR engines with.
struct BenchCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "bench",
    abstract: "Compare the read engines (or, with --identify, the identify plugins) on labelled images.",
    discussion: """
      DIR holds images and a labels.csv with the header file,text (and optionally accept, per \
      digit the digits that count as right, |-separated, and points, unlabelled where the truth \
      cannot say where a decimal point goes: those rows are judged on the reading's digits; \
      Tools/make-digits.py and Tools/make-validation-sets.py write such folders). Every read \
      plugin of the configuration reads every image, one image at a time, \
      not told how many digits it holds (with --told, told the label's digit count, as a meter's \
      --digits would); the vote is the host's. Values are compared as a user gets them, a \
      display's decimal point included ("36.7"). Per engine: \
      exact-match rate with its 95% interval, per-digit accuracy, accuracy of the accepted values \
      when the least confident 10% are rejected, median and p95 ms per image (the vote's: the whole \
      request as the client saw it) and the plugin's peak memory (its processes' VmHWM).

      With --identify, DIR is a household (Tools/make-households.py): meters.csv \
      (name,reference,roi_x,roi_y,roi_width,roi_height,digits) and queries.csv (file,meter; meter \
      empty for a meter never registered). The meters are registered in a temporary database and \
      every query identified: per plugin, top-1 accuracy on known meters; for the vote also the \
      share of unknown meters rejected.

      With --learn N, DIR's images are of one meter (e.g. Tools/make-digits.py --kind real \
      --meter): it is registered in a temporary database, the images after the first N are read \
      as that meter, then the first N are read, saved and corrected to their labels (what a user \
      confirming readings does), and the images after the first N are read again: two tables, \
      before and after learning from N confirmed readings.
      """)

  @OptionGroup var global: GlobalOptions
  @Argument(help: "A folder with images and labels.csv.") var directory: String
  @Option(help: "Show only these engines (comma-separated plugin names); the vote is always shown.")
  var engines: String?
  @Option(help: "Also write the table as an SVG bar chart to this file.") var svg: String?
  @Flag(help: "DIR is a household of meters and queries: compare the identify plugins.") var identify = false
  @Flag(help: "One JSON object per engine, one per line.") var json = false
  @Flag(help: "Tell the engines each label's digit count, as a meter's --digits would.") var told = false
  @Flag(help: "Also list every image the vote read wrong: its file, truth, reading and confidence.")
  var showErrors = false
  @Option(help: "DIR is one meter: score the engines before and after learning from its first N images.")
  var learn: Int?

  func validate() throws {
    if let learn, learn < 1 { throw ValidationError("--learn must be at least 1") }
    if learn != nil && identify { throw ValidationError("--learn and --identify exclude each other") }
  }

  func run() async throws {
    try await reportingFailures {
      if identify {
        try await benchIdentify()
        return
      }
      let images: [LabelledImage]
      do {
        images = try LabelledSet.load(directory)
      } catch {
        throw CommandFailure.badInput("\(error)")
      }
      guard images.count > learn ?? 0 else {
        throw CommandFailure.badInput("\(directory)/labels.csv lists \(images.count) images; more are needed")
      }
      if let learn {
        try await benchLearning(images, examples: learn)
        return
      }
      let client = try await global.connect()
      let tally: Tally
      do {
        tally = try await Self.score(images, told: told, client: client)
        await client.close()
      } catch {
        await client.close()
        throw error
      }
      try report(tally, images: images.count)
    }
  }

  /// Reads every image, one at a time, as `meter` (or as no meter), and scores the engines.
  static func score(_ images: [LabelledImage], meter: String = "", told: Bool, client: HostClient) async throws
    -> Tally
  {
    var tally = Tally()
    await runInOrder(images, width: 1) { labelled in
      await Self.read(labelled, meter: meter, told: told, client: client)
    } emit: { outcome in
      tally.add(outcome)
    }
    tally.peakMemory = Self.peakMemory(try await client.send(.listPlugins))
    return tally
  }

  /// Prints the table (or JSON lines, each with `phase` when given) and writes the chart.
  func report(_ tally: Tally, images: Int, phase: String? = nil) throws {
    if let failure = tally.failures.first, tally.failures.count == images {
      throw CommandFailure.badInput("no image could be read; the first failure: \(failure)")
    }
    let shown = engines.map { Set($0.split(separator: ",").map(String.init)) }
    let rows = tally.rows.filter { shown?.contains($0.engine) ?? true || $0.engine == EngineComparison.vote }
    json ? printJSON(rows, phase: phase) : printReport(rows, tally: tally)
    if showErrors {
      printMisses(tally.misses, phase: phase)
    }
    if let svg {
      try writeChart(rows, to: phase.map { svg.replacingOccurrences(of: ".svg", with: "-\($0).svg") } ?? svg)
    }
  }

  /// One image's outcome: the host's result, or why the request failed.
  struct Outcome: Sendable {
    var image: LabelledImage
    var result: ReadResult?
    var failure: String?
    var milliseconds: Double
  }

  static func read(
    _ labelled: LabelledImage, meter: String = "", told: Bool = false, save: Bool = false, client: HostClient
  ) async -> Outcome {
    let clock = ContinuousClock()
    let start = clock.now
    do {
      let data = try loadImage(labelled.path)
      // A labelled image is a digit window: the whole image is the window, even where a photo as
      // large would be searched for rows of digits.
      let size = try? ImageInfo.inspect(data)
      let request = ReadRequest(
        image: Image(data: data, name: labelled.path),
        roi: size.map { Rect(x: 0, y: 0, width: Int32($0.width), height: Int32($0.height)) }, meter: meter,
        digits: told ? UInt32(labelled.text.filter(\.isNumber).count) : 0, save: save, shadows: true)
      let result = try await client.send(.read(request))
      return Outcome(image: labelled, result: result, milliseconds: milliseconds(clock.now - start))
    } catch {
      return Outcome(image: labelled, failure: "\(error)", milliseconds: milliseconds(clock.now - start))
    }
  }

  /// Each plugin's peak resident memory in MiB: the largest VmHWM among its processes.
  static func peakMemory(_ plugins: [PluginStatus]) -> [String: Double] {
    var peaks: [String: Double] = [:]
    for plugin in plugins {
      for pid in plugin.pids {
        peaks[plugin.name] = max(peaks[plugin.name] ?? 0, ProcessStats.read(pid).peakMiB)
      }
    }
    return peaks
  }

  /// The engines' scores, in the order they first answered, then the vote.
  struct Tally {
    struct Row {
      var engine: String
      var voted: Bool
      var score = EngineScore()
    }

    /// An image the vote read wrong.
    struct Miss {
      var path: String
      var truth: String
      var value: String
      var confidence: Double
    }

    var rows: [Row] = []
    var failures: [String] = []
    var misses: [Miss] = []
    var peakMemory: [String: Double] = [:]

    mutating func add(_ outcome: Outcome) {
      let (accepted, judged) = (outcome.image.accepted, outcome.image.judged)
      guard let result = outcome.result else {
        failures.append("\(outcome.image.path): \(outcome.failure ?? "no result")")
        return
      }
      for answer in result.engines {
        let index = row(answer.plugin, voted: answer.voted)
        rows[index].score.add(
          accepted: accepted, answer: answer.value.map { judged(Self.asRead($0.text)) },
          confidence: answer.value?.confidence ?? 0, milliseconds: answer.milliseconds,
          vote: judged(Self.asRead(result.value)))
      }
      let vote = row(EngineComparison.vote, voted: true)
      let value = Self.asRead(result.value)
      rows[vote].score.add(
        accepted: accepted, answer: result.value.isEmpty ? nil : judged(value),
        confidence: result.confidence, milliseconds: outcome.milliseconds)
      if !outcome.image.isRight(value) {
        misses.append(
          Miss(path: outcome.image.path, truth: outcome.image.text, value: value, confidence: result.confidence))
      }
      // The vote stays last.
      rows.append(rows.remove(at: vote))
    }

    /// A value as a user gets it: digits and a decimal point.
    static func asRead(_ text: String) -> String {
      text.filter { $0.isNumber || $0 == "." }
    }

    private mutating func row(_ engine: String, voted: Bool) -> Int {
      if let index = rows.firstIndex(where: { $0.engine == engine }) {
        return index
      }
      rows.append(Row(engine: engine, voted: voted))
      return rows.count - 1
    }
  }

  private func printReport(_ rows: [Tally.Row], tally: Tally) {
    let count = rows.last?.score.count ?? 0
    print("\(count) images of \(directory)" + (tally.failures.isEmpty ? "" : ", \(tally.failures.count) failed"))
    printTable(
      header: [
        "ENGINE", "ROLE", "IMAGES", "EXACT (95% CI)", "PER DIGIT", "ACCEPTED@90%", "P50 MS", "P95 MS", "PEAK MIB",
      ],
      rows: rows.map { row in
        let score = row.score
        return [
          row.engine, row.engine == EngineComparison.vote ? "-" : row.voted ? "vote" : "shadow", "\(score.count)",
          score.exactRate.formatted, score.digitAccuracy.percent, score.acceptedAccuracy().percent,
          String(format: "%.1f", score.latency(0.5)), String(format: "%.1f", score.latency(0.95)),
          tally.peakMemory[row.engine].map { String(format: "%.0f", $0) } ?? "-",
        ]
      })
    for failure in tally.failures.prefix(5) {
      FileHandle.standardError.write(Data("failed: \(failure)\n".utf8))
    }
  }

  /// The images the vote read wrong, one a line (JSON lines with `--json`).
  private func printMisses(_ misses: [Tally.Miss], phase: String?) {
    for miss in misses {
      let file = URL(fileURLWithPath: miss.path).lastPathComponent
      if json {
        var fields: [(String, JSONValue)] = [
          ("image", .string(file)), ("truth", .string(miss.truth)), ("read", .string(miss.value)),
          ("confidence", .number(miss.confidence)),
        ]
        if let phase { fields.insert(("phase", .string(phase)), at: 0) }
        print(JSONValue.object(fields).rendered)
      } else {
        let value = miss.value.isEmpty ? "nothing" : miss.value
        print("  wrong: \(file) truth \(miss.truth), read \(value) (\(String(format: "%.3f", miss.confidence)))")
      }
    }
  }

  private func printJSON(_ rows: [Tally.Row], phase: String?) {
    for row in rows {
      let score = row.score
      let interval = score.exactRate.interval
      print(
        JSONValue.object(
          (phase.map { [("phase", JSONValue.string($0))] } ?? []) + [
            ("engine", .string(row.engine)), ("voted", .bool(row.voted)), ("images", .number(score.count)),
            ("exact", .number(score.exact)), ("exact_rate", .number(score.exactRate.rate)),
            ("exact_rate_low", .number(interval.lowerBound)), ("exact_rate_high", .number(interval.upperBound)),
            ("digit_accuracy", .number(score.digitAccuracy.rate)),
            ("accepted_accuracy", .number(score.acceptedAccuracy().rate)), ("cer", .number(score.characterErrorRate)),
            ("p50_ms", .number(score.latency(0.5))), ("p95_ms", .number(score.latency(0.95))),
          ]
        ).rendered)
    }
  }

  private func writeChart(_ rows: [Tally.Row], to path: String) throws {
    try writeChart(
      title: "Read engines on \(URL(fileURLWithPath: directory).lastPathComponent)", items: rows.map(\.engine),
      series: [
        .init(name: "exact", colour: "#2b6cb0", values: rows.map { $0.score.exactRate.rate }),
        .init(name: "per digit", colour: "#68d391", values: rows.map { $0.score.digitAccuracy.rate }),
        .init(name: "accepted@90%", colour: "#ed8936", values: rows.map { $0.score.acceptedAccuracy().rate }),
      ], to: path)
  }

  func writeChart(title: String, items: [String], series: [BarChart.Series], to path: String) throws {
    let chart = BarChart(title: title, items: items, series: series)
    do {
      try Data(chart.svg.utf8).write(to: URL(fileURLWithPath: path))
    } catch {
      throw CommandFailure.badInput("cannot write \(path): \(error.localizedDescription)")
    }
  }
}
