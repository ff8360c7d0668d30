import Foundation
import PhotometerProtocol

/// One photo of Tools/make-dial-meters.py's labels.csv: file, value, wheels (x y w h), dials
/// (`x y w h:factor:cw|ccw`, ';'-separated), positions ('|'-separated), wheel_roll.
struct RenderedMeter {
  struct Dial {
    var region: Rect
    var factor: String
    var counterClockwise: Bool
    /// The pointer's true position in [0, 10).
    var truth: Double
  }

  var file: String
  var value: String
  var wheels: Rect
  var dials: [Dial]
  var wheelRoll: Double

  /// Every meter of the set in `folder`.
  static func load(_ folder: URL) throws -> [RenderedMeter] {
    let text = try String(contentsOf: folder.appendingPathComponent("labels.csv"), encoding: .utf8)
    return text.split(separator: "\n").dropFirst().map { line in
      let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      let truths = fields[4].split(separator: "|").compactMap { Double($0) }
      let dials = zip(fields[3].split(separator: ";"), truths).map { setting, truth in
        let parts = setting.split(separator: ":").map(String.init)
        return Dial(region: rect(parts[0]), factor: parts[1], counterClockwise: parts[2] == "ccw", truth: truth)
      }
      return RenderedMeter(
        file: fields[0], value: fields[1], wheels: rect(fields[2]), dials: dials, wheelRoll: Double(fields[5]) ?? 0)
    }
  }

  private static func rect(_ text: String) -> Rect {
    let numbers = text.split(separator: " ").compactMap { Int32($0) }
    return Rect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
  }
}
