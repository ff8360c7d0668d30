import ChildProcess
import Foundation
import PhotometerClient
import PhotometerProtocol
import PhotometerScoring
import Synchronization

/// The soak test's run: set-up, the clients' loops, the checks, the ping run.
struct LoadTest {
  struct Settings {
    var household: String
    var minutes: Double
    var clients: Int
    var pings: Int
    var plugins: String
    /// Every how many steps a client lists a meter's readings (with their crops); 0: never.
    var listEvery: Int
  }

  let settings: Settings
  let database: String
  let meters: [HouseholdSet.Meter]
  let queries: [HouseholdSet.Query]

  init(_ settings: Settings) throws {
    self.settings = settings
    database = FileManager.default.temporaryDirectory.appendingPathComponent("load-\(UUID().uuidString).sqlite").path
    let household = try HouseholdSet(settings.household)
    meters = Array(household.meters.prefix(10))
    let names = Set(meters.map(\.name))
    queries = household.queries.filter { names.contains($0.meter) }
    guard !meters.isEmpty, !queries.isEmpty else {
      throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "no meters or queries"])
    }
  }

  func launch() async throws -> HostClient {
    try await HostClient.launchSibling(
      plugins: URL(fileURLWithPath: settings.plugins).standardized.path, database: database)
  }

  /// Runs everything and prints the figures; returns whether every check passed.
  func run() async throws -> Bool {
    print(
      "Load: \(settings.clients) clients, each with its own host, on one database, for \(settings.minutes) min; "
        + "\(meters.count) meters of \(URL(fileURLWithPath: settings.household).lastPathComponent)")
    let setup = try await launch()
    for meter in meters {
      let photo = Image(data: [UInt8](try Data(contentsOf: URL(fileURLWithPath: meter.reference))))
      _ = try await setup.send(
        .addMeter(
          AddMeterRequest(
            meter: Meter(name: meter.name, kind: .water, roi: meter.roi, digits: meter.digits), references: [photo])))
    }
    await setup.close()

    let clients = try await withThrowingTaskGroup(of: HostClient.self) { group in
      for _ in 0..<settings.clients { group.addTask { try await launch() } }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    // Warm up (every plugin started and has learnt the references), then measure memory.
    for client in clients {
      _ = try? await client.send(.identify(IdentifyRequest(image: try image(queries[0].path), references: [])))
    }
    let processes = try await clients.asyncMap { client in try await Processes.of(client) }
    let startMemory = processes.map(\.resident)

    let tally = SharedTally()
    let deadline = ContinuousClock.now + .seconds(settings.minutes * 60)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for (number, client) in clients.enumerated() {
        group.addTask { try await work(client, number: number, until: deadline, tally: tally) }
      }
      // The memory's course, once a minute: a leak climbs, a warm-up levels off.
      group.addTask {
        var minute = 0
        while ContinuousClock.now + .seconds(60) < deadline {
          try await Task.sleep(for: .seconds(60))
          minute += 1
          let memory = processes.map(\.resident)
          let line = String(
            format: "  minute %d: hosts %.0f MiB, plugins %.0f MiB, %d operations\n", minute,
            memory.map(\.host).reduce(0, +), memory.map(\.plugins).reduce(0, +),
            tally.state.withLock { $0.identifies + $0.reads + $0.adds + $0.lists })
          FileHandle.standardOutput.write(Data(line.utf8))
        }
      }
      try await group.waitForAll()
    }
    let endMemory = processes.map(\.resident)
    for client in clients { await client.close() }

    let final = tally.state.withLock { $0 }
    let (stored, duplicates, missing, extra) = try await verify(final.acknowledged)
    let leaked = processes.flatMap(\.pids).filter(Processes.alive)
    print(
      "operations: \(final.identifies) identify, \(final.reads) read+save, \(final.adds) add, \(final.lists) list; "
        + "\(final.failures) failed" + (final.firstFailure.map { " (first: \($0))" } ?? ""))
    print(
      "acknowledged readings: \(final.acknowledged.count); in the database: \(stored); missing: \(missing); "
        + "duplicated: \(duplicates); unexpected: \(extra)")
    print("processes left running after the clients closed: \(leaked.count)")
    let hostStart = startMemory.map(\.host).reduce(0, +)
    let hostEnd = endMemory.map(\.host).reduce(0, +)
    let pluginStart = startMemory.map(\.plugins).reduce(0, +)
    let pluginEnd = endMemory.map(\.plugins).reduce(0, +)
    print(
      String(
        format: "resident memory, start -> end: hosts %.0f -> %.0f MiB, plugins %.0f -> %.0f MiB",
        hostStart, hostEnd, pluginStart, pluginEnd))
    let pingsPassed = try await pingRun()
    return missing == 0 && duplicates == 0 && extra == 0 && leaked.isEmpty && final.failures == 0 && pingsPassed
  }

  func image(_ path: String) throws -> Image {
    Image(data: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), name: path)
  }

  /// One client's loop: identify a photo, read and save it as that meter's, add a reading by
  /// hand, now and then list a meter's readings.
  private func work(_ client: HostClient, number: Int, until deadline: ContinuousClock.Instant, tally: SharedTally)
    async throws
  {
    var step = number
    while ContinuousClock.now < deadline {
      let query = queries[step % queries.count]
      step += 1
      do {
        _ = try await client.send(.identify(IdentifyRequest(image: try image(query.path), references: [])))
        tally.state.withLock { $0.identifies += 1 }
        let read = try await client.send(
          .read(ReadRequest(image: try image(query.path), meter: query.meter, save: true)))
        tally.state.withLock {
          $0.reads += 1
          if read.readingID != 0 { $0.acknowledged.append(Int64(read.readingID)) }
        }
        let added = try await client.send(
          .addReading(AddReadingRequest(meter: query.meter, value: "\(step)", takenAt: Int64(step))))
        tally.state.withLock {
          $0.adds += 1
          $0.acknowledged.append(added.id)
        }
        if settings.listEvery > 0 && step % settings.listEvery == 0 {
          _ = try await client.send(.listReadings(ListReadingsRequest(meter: query.meter)))
          tally.state.withLock { $0.lists += 1 }
        }
      } catch {
        tally.state.withLock {
          $0.failures += 1
          $0.firstFailure = $0.firstFailure ?? "\(error)"
        }
      }
    }
  }

  /// Every meter's readings through a fresh host, against what was acknowledged.
  private func verify(_ acknowledged: [Int64]) async throws -> (stored: Int, duplicates: Int, missing: Int, extra: Int)
  {
    let client = try await launch()
    var ids: [Int64] = []
    for meter in meters {
      ids += try await client.send(.listReadings(ListReadingsRequest(meter: meter.name))).map(\.id)
    }
    await client.close()
    let stored = Set(ids)
    let expected = Set(acknowledged)
    return (ids.count, ids.count - stored.count, expected.subtracting(stored).count, stored.subtracting(expected).count)
  }

  /// 100,000 pings through one host, 16 in flight: latency and the host's memory.
  private func pingRun() async throws -> Bool {
    let client = try await launch()
    let pid = client.process.pid
    let startRSS = ProcessStats.read(pid).residentMiB
    let clock = ContinuousClock()
    let start = clock.now
    // Each task gives its round trip in ms, or nil when the ping failed.
    let results = try await withThrowingTaskGroup(of: Double?.self) { group in
      var sent = 0
      var results: [Double?] = []
      func launchOne() {
        guard sent < settings.pings else { return }
        sent += 1
        group.addTask {
          let began = clock.now
          guard (try? await client.ping()) != nil else { return nil }
          return (clock.now - began).milliseconds
        }
      }
      for _ in 0..<16 { launchOne() }
      while let result = try await group.next() {
        results.append(result)
        launchOne()
      }
      return results
    }
    let all = results.compactMap { $0 }
    let failed = results.count - all.count
    let seconds = (clock.now - start).milliseconds / 1000
    let endRSS = ProcessStats.read(pid).residentMiB
    await client.close()
    print(
      String(
        format: "%d pings through one host, 16 in flight: %.0f/s, p50 %.3f ms, p99 %.3f ms, %d failed; "
          + "host resident memory %.0f -> %.0f MiB",
        settings.pings, Double(settings.pings) / max(seconds, 1e-3), percentile(all, 0.5), percentile(all, 0.99),
        failed, startRSS, endRSS))
    return failed == 0
  }
}

/// What the clients did, shared by their tasks.
final class SharedTally: Sendable {
  let state = Mutex(Tally())
}

struct Tally {
  var identifies = 0
  var reads = 0
  var adds = 0
  var lists = 0
  var failures = 0
  var firstFailure: String?
  var acknowledged: [Int64] = []
}

/// A host and its plugins' processes.
struct Processes {
  var host: Int32
  var plugins: [Int32]

  var pids: [Int32] { [host] + plugins }

  static func of(_ client: HostClient) async throws -> Processes {
    let statuses = try await client.send(.listPlugins)
    return Processes(host: client.process.pid, plugins: statuses.flatMap(\.pids))
  }

  /// Resident memory in MiB: the host's, and its plugins' together.
  var resident: (host: Double, plugins: Double) {
    (ProcessStats.read(host).residentMiB, plugins.map { ProcessStats.read($0).residentMiB }.reduce(0, +))
  }

  /// Whether `pid` is still one of Photometer's processes (not reaped, or reused by another).
  static func alive(_ pid: Int32) -> Bool {
    guard let command = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8) else { return false }
    return command.contains("photometer") || command.contains("python")
  }
}

extension Array {
  func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
    var results: [T] = []
    for element in self { results.append(try await transform(element)) }
    return results
  }
}
