import Foundation
import PhotometerClient
import PhotometerProtocol
import PhotometerScoring

extension BenchCommand {
  /// One identify plugin (or the vote) over the household's queries.
  struct IdentifyRow {
    var plugin: String
    var voted: Bool
    /// Known meters named right.
    var known = Proportion(0, of: 0)
    /// Unknown meters turned away (the vote only: plugins always name their best candidate).
    var rejected = Proportion(0, of: 0)
    var milliseconds: [Double] = []
  }

  /// Registers the household's meters in a fresh database, identifies every query and scores the
  /// plugins and the vote. The first query after the start also pays for the plugins learning every
  /// reference (they are sent the photos they ask for), so its time is printed apart too.
  func benchIdentify() async throws {
    let household: HouseholdSet
    do {
      household = try HouseholdSet(directory)
    } catch {
      throw CommandFailure.badInput(error.description)
    }
    guard !household.meters.isEmpty, !household.queries.isEmpty else {
      throw CommandFailure.badInput("\(directory) has no meters or no queries")
    }
    var options = global
    let database = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString).sqlite")
    options.db = database.path
    defer { try? FileManager.default.removeItem(at: database) }
    let client = try await options.connect()
    var rows: [IdentifyRow] = []
    var peaks: [String: Double] = [:]
    var first: Double?
    do {
      for meter in household.meters {
        let request = AddMeterRequest(
          meter: Meter(name: meter.name, kind: .other, roi: meter.roi, digits: meter.digits),
          references: [Image(data: try loadImage(meter.reference), name: meter.reference)])
        _ = try await client.send(.addMeter(request))
      }
      let clock = ContinuousClock()
      let progress = ProgressBar(total: household.queries.count)
      for query in household.queries {
        let start = clock.now
        let result = try await client.send(
          .identify(
            IdentifyRequest(image: Image(data: try loadImage(query.path), name: query.path), references: [])))
        let elapsed = milliseconds(clock.now - start)
        first = first ?? elapsed
        progress.advance()
        func row(_ name: String, voted: Bool) -> Int {
          if let index = rows.firstIndex(where: { $0.plugin == name }) { return index }
          rows.append(IdentifyRow(plugin: name, voted: voted))
          return rows.count - 1
        }
        for answer in result.plugins {
          let index = row(answer.plugin, voted: answer.voted)
          rows[index].milliseconds.append(answer.milliseconds)
          if !query.meter.isEmpty {
            rows[index].known.trials += 1
            rows[index].known.successes += answer.value?.first?.meter == query.meter ? 1 : 0
          }
        }
        let vote = row(EngineComparison.vote, voted: true)
        rows[vote].milliseconds.append(elapsed)
        if query.meter.isEmpty {
          rows[vote].rejected.trials += 1
          rows[vote].rejected.successes += result.meter.isEmpty ? 1 : 0
        } else {
          rows[vote].known.trials += 1
          rows[vote].known.successes += result.meter == query.meter ? 1 : 0
        }
        rows.append(rows.remove(at: vote))
      }
      progress.clear()
      peaks = Self.peakMemory(try await client.send(.listPlugins))
      await client.close()
    } catch {
      await client.close()
      throw error
    }
    let shown = engines.map { Set($0.split(separator: ",").map(String.init)) }
    rows = rows.filter { shown?.contains($0.plugin) ?? true || $0.plugin == EngineComparison.vote }
    if json {
      for row in rows {
        print(
          JSONValue.object([
            ("plugin", .string(row.plugin)), ("voted", .bool(row.voted)), ("known", .number(row.known.trials)),
            ("top1", .number(row.known.rate)), ("unknown", .number(row.rejected.trials)),
            ("rejected", row.plugin == EngineComparison.vote ? .number(row.rejected.rate) : .null),
            ("p50_ms", .number(percentile(row.milliseconds, 0.5))),
            ("p95_ms", .number(percentile(row.milliseconds, 0.95))),
            ("first_ms", row.plugin == EngineComparison.vote ? .number(first ?? 0) : .null),
          ]).rendered)
      }
      return
    }
    print("\(household.meters.count) meters, \(household.queries.count) queries of \(directory)")
    printTable(
      header: ["PLUGIN", "ROLE", "KNOWN", "TOP-1 (95% CI)", "UNKNOWN REJECTED", "P50 MS", "P95 MS", "PEAK MIB"],
      rows: rows.map { row in
        let isVote = row.plugin == EngineComparison.vote
        return [
          row.plugin, isVote ? "-" : row.voted ? "vote" : "shadow", "\(row.known.trials)", row.known.formatted,
          isVote ? row.rejected.formatted : "-", String(format: "%.1f", percentile(row.milliseconds, 0.5)),
          String(format: "%.1f", percentile(row.milliseconds, 0.95)),
          peaks[row.plugin].map { String(format: "%.0f", $0) } ?? "-",
        ]
      })
    let voteP50 = percentile(rows.first { $0.plugin == EngineComparison.vote }?.milliseconds ?? [], 0.5)
    print(
      "first query after the start, every reference learnt or read back in it: "
        + String(format: "%.0f ms (the vote's p50: %.1f ms)", first ?? 0, voteP50))
    if let svg {
      try writeChart(
        title: "Identify plugins on \(URL(fileURLWithPath: directory).lastPathComponent)", items: rows.map(\.plugin),
        series: [
          .init(name: "top-1", colour: "#2b6cb0", values: rows.map { $0.known.rate }),
          .init(
            name: "unknown rejected", colour: "#ed8936",
            values: rows.map { $0.plugin == EngineComparison.vote ? $0.rejected.rate : nil }),
        ], to: svg)
    }
  }
}
