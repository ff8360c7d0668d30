import Foundation
import PhotometerScoring

/// One engine's results over one set, as a line of the evaluation's table.
struct Score {
  static let header =
    "set              engine         strips  exact    per-digit  accepted@90%  calibration  ms/strip (p50 p95)"

  private var score = EngineScore()

  var count: Int { score.count }

  /// - Parameter accepted: per digit, the digits a reader may rightly give (a wheel caught
  ///   between two digits allows both).
  mutating func add(_ accepted: [String], _ answer: String, _ confidence: Double, _ milliseconds: Double) {
    score.add(accepted: accepted, answer: answer, confidence: confidence, milliseconds: milliseconds)
  }

  func line(set: String, engine: String) -> String {
    pad(set, 16) + " " + pad(engine, 14) + " " + pad("\(score.count)", 7) + " " + pad(score.exactRate.percent, 8)
      + " " + pad(score.digitAccuracy.percent, 10) + " " + pad(score.acceptedAccuracy().percent, 13) + " "
      + pad(String(format: "%.3f", score.calibrationError()), 12) + " "
      + String(format: "%.2f %.2f", score.latency(0.5), score.latency(0.95))
  }
}

func pad(_ text: String, _ width: Int) -> String {
  text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}
