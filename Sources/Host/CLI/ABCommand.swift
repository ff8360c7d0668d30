import ArgumentParser
import Foundation
import PhotometerClient
import PhotometerProtocol
import PhotometerScoring

/// `photometer ab`: the engines judged against the readings the user confirmed or corrected.
struct ABCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ab",
    abstract: "Compare the OCR engines on the readings you confirmed or corrected.",
    discussion: """
      Every OCR reading keeps each engine's answer (voting and shadow engines alike); confirming \
      or correcting a reading makes it the truth for all of them. Per engine: confirmed readings \
      it answered, exact-match rate with its 95% interval, character error rate, per-digit \
      accuracy, latency p50/p95 and how often it disagreed with the vote; then, for each pair of \
      engines, whether the difference is significant on these readings (McNemar's exact test).
      """)

  @OptionGroup var global: GlobalOptions
  @Option(help: "Only this meter's readings (default: every meter's).") var meter: String?
  @Option(help: "Only readings taken from this time on.") var since: TimeArgument?
  @Flag(help: "One JSON object per engine, then one per pair of engines.") var json = false

  func run() async throws {
    try await reportingFailures {
      let client = try await global.connect()
      var readings: [StoredReading] = []
      // Per meter, the places its value has past the wheels: dials, or an extended counter's roll.
      var places: [String: Int] = [:]
      do {
        let registered = try await client.send(.listMeters)
        for registered in registered {
          places[registered.name] = registered.dials.isEmpty ? (registered.extended ? 1 : 0) : registered.dials.count
        }
        let meters = meter.map { [$0] } ?? registered.map(\.name)
        for name in meters {
          let request = ListReadingsRequest(meter: name, from: since?.milliseconds)
          readings += try await client.send(.listReadings(request))
        }
        await client.close()
      } catch {
        await client.close()
        throw error
      }
      let comparison = EngineComparison(readings) { places[$0] ?? 0 }
      json ? printJSON(comparison) : printReport(comparison)
    }
  }

  private func printReport(_ comparison: EngineComparison) {
    guard comparison.readings > 0 else {
      print(
        "No confirmed OCR readings yet: confirm or correct readings (photometer reading confirm) to compare engines.")
      return
    }
    print("\(comparison.readings) confirmed OCR readings")
    printTable(
      header: [
        "ENGINE", "VERSION", "ROLE", "READINGS", "EXACT (95% CI)", "CER", "PER DIGIT", "P50 MS", "P95 MS", "DISAGREED",
      ],
      rows: comparison.rows.map { row in
        let score = row.score
        let isVote = row.engine == EngineComparison.vote
        return [
          row.engine, row.versions.joined(separator: ", "), isVote ? "-" : row.voted ? "vote" : "shadow",
          "\(score.count)",
          score.exactRate.formatted, String(format: "%.3f", score.characterErrorRate), score.digitAccuracy.percent,
          isVote ? "-" : String(format: "%.1f", score.latency(0.5)),
          isVote ? "-" : String(format: "%.1f", score.latency(0.95)), score.disagreementRate.percent,
        ]
      })
    if !comparison.pairs.isEmpty {
      print("")
    }
    for pair in comparison.pairs {
      print(pair.statement)
    }
  }

  private func printJSON(_ comparison: EngineComparison) {
    for row in comparison.rows {
      let score = row.score
      let interval = score.exactRate.interval
      print(
        JSONValue.object([
          ("engine", .string(row.engine)), ("versions", .array(row.versions.map { .string($0) })),
          ("voted", .bool(row.voted)), ("readings", .number(score.count)), ("exact", .number(score.exact)),
          ("exact_rate", .number(score.exactRate.rate)), ("exact_rate_low", .number(interval.lowerBound)),
          ("exact_rate_high", .number(interval.upperBound)), ("cer", .number(score.characterErrorRate)),
          ("digit_accuracy", .number(score.digitAccuracy.rate)), ("p50_ms", .number(score.latency(0.5))),
          ("p95_ms", .number(score.latency(0.95))), ("disagreed_with_vote", .number(score.disagreements)),
        ]).rendered)
    }
    for pair in comparison.pairs {
      print(
        JSONValue.object([
          ("compare", .array([.string(pair.first), .string(pair.second)])), ("readings", .number(pair.readings)),
          ("only_first_right", .number(pair.test.onlyFirst)), ("only_second_right", .number(pair.test.onlySecond)),
          ("p_value", .number(pair.test.pValue)), ("significant", .bool(pair.test.isSignificant)),
          ("statement", .string(pair.statement)),
        ]).rendered)
    }
  }
}
