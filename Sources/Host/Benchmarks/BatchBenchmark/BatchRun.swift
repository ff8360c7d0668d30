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
        {"name": "digits", "command": ["photometer-digits"], "roles": ["read"], "weight": 3, "instances": \(instances),
         "max_queued": 1000},
        {"name": "tesseract", "command": ["photometer-tesseract"], "roles": ["read"], "instances": \(instances),
         "max_queued": 1000}
      ]}
      """
    try Data(json.utf8).write(to: plugins)
    let client = try await HostClient.launch(
      executable: "\(ChildProcess.executableFolder)/photometer-host",
      arguments: [
        "--plugins", plugins.path, "--db", folder.appendingPathComponent("db.sqlite").path, "--log-level", "error",
      ])
    // The plugins' pids, once all have started; and one read each, so that lazy loading is over.
    guard case .pluginList(let statuses) = try await client.request(.listPlugins) else {
      throw CocoaError(.featureUnsupported)
    }
    _ = try await client.read(images[0])
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
        group.addTask { _ = try await client.read(request) }
      }
      for _ in 0..<16 { launch() }
      while try await group.next() != nil {
        launch()
      }
    }
    let seconds =
      Double((clock.now - start).components.attoseconds) / 1e18
      + Double((clock.now - start).components.seconds)
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

/// CPU time and memory of a process, from /proc.
struct ProcessStats {
  var cpuSeconds = 0.0
  var residentMiB = 0.0
  var peakMiB = 0.0

  static func read(_ pid: Int32) -> ProcessStats {
    var stats = ProcessStats()
    if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let end = stat.lastIndex(of: ")")
    {
      // After "pid (name) ": state is field 3; utime and stime are fields 14 and 15.
      let fields = stat[stat.index(after: end)...].split(separator: " ")
      let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
      if fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) {
        stats.cpuSeconds = (user + system) / ticks
      }
    }
    if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) {
      for line in status.split(separator: "\n") {
        let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard parts.count >= 2, let kilobytes = Double(parts[1]) else { continue }
        if parts[0] == "VmRSS:" { stats.residentMiB = kilobytes / 1024 }
        if parts[0] == "VmHWM:" { stats.peakMiB = kilobytes / 1024 }
      }
    }
    return stats
  }
}
