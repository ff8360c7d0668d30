import Foundation

/// A count of successes among trials, with its 95% Wilson score interval (which, unlike the
/// normal approximation, stays within 0...1 and behaves for small counts and rates near 0 or 1).
public struct Proportion: Sendable, Equatable {
  public var successes: Int
  public var trials: Int

  public init(_ successes: Int, of trials: Int) {
    self.successes = successes
    self.trials = trials
  }

  /// The rate, 0 to 1; 0 when there were no trials.
  public var rate: Double { trials == 0 ? 0 : Double(successes) / Double(trials) }

  /// The 95% Wilson score interval.
  public var interval: ClosedRange<Double> {
    guard trials > 0 else { return 0...1 }
    let z = 1.959964
    let n = Double(trials)
    let p = rate
    let centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    let half = z / (1 + z * z / n) * (p * (1 - p) / n + z * z / (4 * n * n)).squareRoot()
    return max(0, centre - half)...min(1, centre + half)
  }

  /// "93.1% (91.0-94.8)", or "-" without trials.
  public var formatted: String {
    guard trials > 0 else { return "-" }
    return String(format: "%.1f%% (%.1f-%.1f)", 100 * rate, 100 * interval.lowerBound, 100 * interval.upperBound)
  }

  /// "93.1%", or "-" without trials.
  public var percent: String {
    trials == 0 ? "-" : String(format: "%.1f%%", 100 * rate)
  }
}

/// McNemar's exact test on paired answers of two engines to the same items: only the items where
/// exactly one of them was right tell them apart.
public struct PairedComparison: Sendable, Equatable {
  /// Items the first engine got right and the second wrong, and the other way round.
  public var onlyFirst: Int
  public var onlySecond: Int

  public init(onlyFirst: Int, onlySecond: Int) {
    self.onlyFirst = onlyFirst
    self.onlySecond = onlySecond
  }

  /// The two-sided p-value: the chance of a split at least this uneven if both engines were
  /// equally good (binomial with p = 1/2 over the discordant items).
  public var pValue: Double {
    let n = onlyFirst + onlySecond
    guard n > 0 else { return 1 }
    let k = min(onlyFirst, onlySecond)
    // log of C(n, i) / 2^n, summed over the tail i <= k, in logs to stay finite for large n.
    var tail = 0.0
    for i in 0...k {
      tail += exp(lgamma(Double(n + 1)) - lgamma(Double(i + 1)) - lgamma(Double(n - i + 1)) - Double(n) * log(2))
    }
    return min(1, 2 * tail)
  }

  /// Whether the difference is significant at the 5% level.
  public var isSignificant: Bool { pValue < 0.05 }
}
