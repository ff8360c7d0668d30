import Foundation
import PhotometerProtocol

/// One photo of Tools/make-dial-meters.py's labels.csv: file, value, wheels (x y w h), dials
/// (`x y w h:factor:cw|ccw`, ';'-separated), positions ('|'-separated), wheel_roll; with
/// `--references`, reference_wheels and reference_dials, the same in reference-NNNN.jpg.
struct RenderedMeter {
  struct Dial {
    var region: Rect
    var factor: String
    var counterClockwise: Bool
    /// The pointer's true position in [0, 10).
    var truth: Double

    /// How far `position` stands from the truth round the dial, in divisions (at most 5).
    func error(of position: Double) -> Double {
      let apart = abs(position - truth)
      return min(apart, 10 - apart)
    }

    /// The line `--show-errors` prints for this dial of `file` read at `position`, `confidence`
    /// sure; `via` names the way it was read (" (host)"), empty in process.
    func errorLine(_ file: String, via: String = "", position: Double, confidence: Double) -> String {
      "  \(file)\(via) dial x\(factor) \(counterClockwise ? "ccw" : "cw"): read "
        + String(format: "%.2f (%.2f)", position, confidence) + ", truth \(truth)"
    }
  }

  var file: String
  var value: String
  var wheels: Rect
  var dials: [Dial]
  var wheelRoll: Double
  /// The meter square on at another reading, as a user sets it up: the photo's file, and its
  /// wheels and dials there (their truths are the photo's).
  var reference: (file: String, wheels: Rect, dials: [Dial])?

  /// Whether the finest dial's needle is drawn within `share` of a division of a mark, where its
  /// digit is one no reader can be sure of (at a mean error of 0.02 of a division, such a needle
  /// is read either side about as often).
  func finestNeedleOnAMark(within share: Double = 0.05) -> Bool {
    guard let finest = dials.last else { return false }
    let past = finest.truth - finest.truth.rounded(.down)
    return min(past, 1 - past) <= share
  }

  /// Every meter of the set in `folder`.
  static func load(_ folder: URL) throws -> [RenderedMeter] {
    let text = try String(contentsOf: folder.appendingPathComponent("labels.csv"), encoding: .utf8)
    return text.split(separator: "\n").dropFirst().map { line in
      let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      let truths = fields[4].split(separator: "|").compactMap { Double($0) }
      var meter = RenderedMeter(
        file: fields[0], value: fields[1], wheels: rect(fields[2]), dials: dials(fields[3], truths),
        wheelRoll: Double(fields[5]) ?? 0)
      if fields.count >= 8 {
        meter.reference = (
          fields[0].replacingOccurrences(of: "meter-", with: "reference-"), rect(fields[6]), dials(fields[7], truths)
        )
      }
      return meter
    }
  }

  private static func dials(_ text: String, _ truths: [Double]) -> [Dial] {
    zip(text.split(separator: ";"), truths).map { setting, truth in
      let parts = setting.split(separator: ":").map(String.init)
      return Dial(region: rect(parts[0]), factor: parts[1], counterClockwise: parts[2] == "ccw", truth: truth)
    }
  }

  private static func rect(_ text: String) -> Rect {
    let numbers = text.split(separator: " ").compactMap { Int32($0) }
    return Rect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
  }
}
