import DigitReader
import Foundation
import PhotometerProtocol
import PhotometerVision
import PhotometerVoting

/// Whole meters read as the host reads a meter with dials: the wheels' window by the sequence
/// reader, told the wheel count (a meter set up with dials has its digits set), each dial by the
/// pointer reader, one value by ``DialChain``.
struct CombinedScore {
  var meters = 0
  var exact = 0
  /// The wheels alone, to the whole unit.
  var wheelsExact = 0
  /// Meters whose last wheel was caught past a fifth of its roll.
  var midRoll = 0
  var midRollExact = 0
  /// The wrong meters by what they got wrong.
  var mistakes = MistakeTally()

  mutating func add(
    _ meter: RenderedMeter, image: VisionImage, dials: [PointerDial], reader: ReaderPanel, wheelCount: Int = 5,
    showErrors: Bool
  ) throws {
    let wheels = try reader.read(image.cropped(meter.wheels), digits: wheelCount)
    let pointers = dials.map { DialChain.Pointer(position: $0.value, confidence: $0.confidence) }
    let chain = DialChain(wheels: wheels.symbols, wheelConfidence: wheels.confidence, dials: pointers)
    meters += 1
    wheelsExact += wheels.text == String(meter.value.prefix(while: { $0 != "." })) ? 1 : 0
    let right = chain?.value == meter.value
    exact += right ? 1 : 0
    mistakes.add(chain?.value ?? "", of: meter)
    if meter.wheelRoll > 0.2 && meter.wheelRoll < 0.8 {
      midRoll += 1
      midRollExact += right ? 1 : 0
    }
    if showErrors && !right {
      let seen = wheels.symbols.map { symbol in
        symbol.roll.map { "\($0.from)+\(String(format: "%.1f", $0.fraction))" } ?? symbol.text
      }
      let last = wheels.symbols.last.map { symbol in
        ([(symbol.text, symbol.confidence)] + symbol.alternatives.map { ($0.text, $0.confidence) })
          .map { "\($0.0):\(String(format: "%.3f", $0.1))" }.joined(separator: " ")
      }
      print(
        "  \(meter.file): \(chain?.value ?? "none") (wheels \(seen.joined(separator: " ")); last \(last ?? "-");"
          + " dials \(pointers.map { String(format: "%.2f", $0.position) }.joined(separator: " "))), truth \(meter.value)"
      )
    }
  }

  func row(_ name: String) -> String {
    "\(name) | \(meters) | \(share(exact, meters)) | \(share(midRollExact, midRoll)) (\(midRoll)) | "
      + "\(share(wheelsExact, meters)) | \(mistakes.summary)"
  }
}

/// `count` of `total` as a percentage with one decimal (0% of none).
func share(_ count: Int, _ total: Int) -> String {
  String(format: "%.1f%%", 100 * Double(count) / Double(max(total, 1)))
}
