import Foundation

/// One engine's results over one set.
struct Score {
  static let header =
    "set              engine         strips  exact    per-digit  accepted@90%  ms/strip (p50 p95)"

  private var results: [(exact: Bool, confidence: Double)] = []

  var count: Int { results.count }
  private var digits = 0
  private var digitsRight = 0
  private var times: [Double] = []

  /// - Parameter accepted: per digit, the digits a reader may rightly give (a wheel caught
  ///   between two digits allows both).
  mutating func add(_ accepted: [String], _ answer: String, _ confidence: Double, _ milliseconds: Double) {
    let answer = Array(answer)
    digits += accepted.count
    if answer.count == accepted.count {
      let right = zip(answer, accepted).filter { $1.contains($0) }.count
      digitsRight += right
      results.append((right == accepted.count, confidence))
    } else {
      let truth = Array(accepted.map { $0.first! })
      digitsRight += max(0, truth.count - editDistance(truth, answer))
      results.append((false, confidence))
    }
    times.append(milliseconds)
  }

  func line(set: String, engine: String) -> String {
    let exact = results.filter(\.exact).count
    // Accepted: the most confident 90%.
    let kept = results.sorted { $0.confidence > $1.confidence }.prefix(Int((Double(results.count) * 0.9).rounded()))
    let sorted = times.sorted()
    func percentile(_ fraction: Double) -> Double {
      sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction + 0.5))]
    }
    return pad(set, 16) + " " + pad(engine, 14) + " " + pad("\(results.count)", 7) + " "
      + pad(percent(exact, results.count), 8) + " " + pad(percent(digitsRight, digits), 10) + " "
      + pad(percent(kept.filter(\.exact).count, kept.count), 13) + " "
      + String(format: "%.2f %.2f", percentile(0.5), percentile(0.95))
  }
}

func editDistance(_ a: [Character], _ b: [Character]) -> Int {
  var previous = Array(0...b.count)
  for (i, x) in a.enumerated() {
    var current = [i + 1]
    for (j, y) in b.enumerated() {
      current.append(min(previous[j] + (x == y ? 0 : 1), previous[j + 1] + 1, current[j] + 1))
    }
    previous = current
  }
  return previous[b.count]
}

func percent(_ part: Int, _ whole: Int) -> String {
  whole == 0 ? "-" : String(format: "%.1f%%", 100 * Double(part) / Double(whole))
}

func pad(_ text: String, _ width: Int) -> String {
  text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}
