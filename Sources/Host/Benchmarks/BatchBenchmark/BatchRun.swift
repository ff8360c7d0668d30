import ChildProcess
import Foundation
import PhotometerClient
import PhotometerProtocol

/// One batch through a host whose read plugins each run `instances` processes.
struct BatchRun {
  var instances: Int
  var requestsPerSecond: Double
  var coresBusy: Double
  var host: Memory
  var plugins: [String: Memory]

  struct Memory {
    var idle: Double
    var peak: Double
  }

  static func measure(images: [ReadRequest], requests: Int, instances: Int) async throws -> BatchRun {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("batch-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let plugins = folder.appendingPathComponent("plugins.json")
    let json = """
      {"plugins": [
        {"name": "reader", "command": ["photometer-reader"], "roles": ["read"], "weight": 3, "instances": \(instances),
         "max_queued": 1000},
        {"name": "tesseract", "command": ["photometer-tesseract"], "roles": ["read"], "instances": \(instances),
         "max_queued": 1000}
      ]}
      """
    try Data(json.utf8).write(to: plugins)
    let client = try await HostClient.launchSibling(
      plugins: plugins.path, database: folder.appendingPathComponent("db.sqlite").path)
    // The plugins' pids, once all have started; and one read each, so that lazy loading is over.
    guard case .pluginList(let statuses) = try await client.request(.listPlugins) else {
      throw CocoaError(.featureUnsupported)
    }
    _ = try await client.send(.read(images[0]))
    let pids = Dictionary(uniqueKeysWithValues: statuses.map { ($0.name, $0.pids) })
    let all = [client.process.pid] + pids.values.flatMap { $0 }
    let idle = all.map { ProcessStats.read($0) }

    let clock = ContinuousClock()
    let start = clock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
      var next = 0
      func launch() {
        guard next < requests else { return }
        let request = images[next % images.count]
        next += 1
        group.addTask { _ = try await client.send(.read(request)) }
      }
      for _ in 0..<16 { launch() }
      while try await group.next() != nil {
        launch()
      }
    }
    let seconds = (clock.now - start).milliseconds / 1000
    let busy = all.map { ProcessStats.read($0) }
    await client.close()

    func memory(_ pid: Int32) -> Memory {
      let index = all.firstIndex(of: pid)!
      return Memory(idle: idle[index].residentMiB, peak: busy[index].peakMiB)
    }
    var pluginMemory: [String: Memory] = [:]
    for (name, list) in pids {
      let parts = list.map(memory)
      pluginMemory[name] = Memory(
        idle: parts.map(\.idle).reduce(0, +), peak: parts.map(\.peak).reduce(0, +))
    }
    let cpu = zip(idle, busy).map { $1.cpuSeconds - $0.cpuSeconds }.reduce(0, +)
    return BatchRun(
      instances: instances, requestsPerSecond: Double(requests) / seconds, coresBusy: cpu / seconds,
      host: memory(client.process.pid), plugins: pluginMemory)
  }

  var line: String {
    let pluginText = plugins.keys.sorted().map { name in
      String(format: "%@ %.0f %.0f", name, plugins[name]!.idle, plugins[name]!.peak)
    }.joined(separator: ", ")
    return String(
      format: "%-10d %-11.1f %-11.2f %-21@ %@", instances, requestsPerSecond, coresBusy,
      String(format: "%.0f %.0f", host.idle, host.peak), pluginText)
  }
}
