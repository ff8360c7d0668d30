/// The most recent request durations of a plugin, for its median.
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

  /// The median of the kept durations, or 0 when there are none.
  var median: Double {
    guard !values.isEmpty else {
      return 0
    }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
  }
}
