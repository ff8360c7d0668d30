import Foundation

/// Durations of repeated operations, in milliseconds.
struct Samples {
  var milliseconds: [Double]

  /// Runs `operation` `count` times after a tenth as many warm-up runs, timing each run.
  static func measure(_ count: Int, _ operation: () async throws -> Void) async throws -> Samples {
    for _ in 0..<max(count / 10, 1) {
      try await operation()
    }
    let clock = ContinuousClock()
    var samples: [Double] = []
    samples.reserveCapacity(count)
    for _ in 0..<count {
      let start = clock.now
      try await operation()
      samples.append((clock.now - start).milliseconds)
    }
    return Samples(milliseconds: samples.sorted())
  }

  /// Pools `other`'s samples with these.
  mutating func add(_ other: Samples) {
    milliseconds = (milliseconds + other.milliseconds).sorted()
  }

  func percentile(_ fraction: Double) -> Double {
    milliseconds[min(Int(Double(milliseconds.count) * fraction), milliseconds.count - 1)]
  }

  var median: Double { percentile(0.5) }

  static let header = "what                                    median us    p90 us    p99 us"

  func line(_ name: String) -> String {
    name.padding(toLength: 38, withPad: " ", startingAt: 0)
      + String(format: "%12.1f%10.1f%10.1f", median * 1000, percentile(0.9) * 1000, percentile(0.99) * 1000)
  }
}
