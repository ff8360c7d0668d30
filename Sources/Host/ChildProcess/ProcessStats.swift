import Foundation

/// CPU time and memory of a running process, from Linux's /proc (zeros where it is not there).
public struct ProcessStats: Sendable {
  /// User and system time so far.
  public var cpuSeconds = 0.0
  /// Resident memory now (VmRSS) and at its highest (VmHWM), in MiB.
  public var residentMiB = 0.0
  public var peakMiB = 0.0

  public static func read(_ pid: Int32) -> ProcessStats {
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
