/// The most recent request durations of a plugin, for its median and 95th percentile.
struct LatencyWindow: Sendable {
  /// How many durations are kept.
  static let capacity = 1024

  private var values: [Double] = []
  private var next = 0

  mutating func record(_ milliseconds: Double) {
    if values.count < Self.capacity {
      values.append(milliseconds)
    } else {
      values[next] = milliseconds
      next = (next + 1) % Self.capacity
    }
  }

  /// The kept duration below which `fraction` of them lie (nearest rank), or 0 when there are none.
  func percentile(_ fraction: Double) -> Double {
    guard !values.isEmpty else {
      return 0
    }
    let sorted = values.sorted()
    let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
  }
}
