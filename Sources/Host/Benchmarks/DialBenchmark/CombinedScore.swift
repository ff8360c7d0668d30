import DigitReader
import Foundation
import PhotometerProtocol
import PhotometerVision
import PhotometerVoting

/// Whole meters read as the host reads a meter with dials: the wheels' window by the sequence
/// reader, told the wheel count (a meter set up with dials has its digits set), each dial by the pointer reader, one value by ``DialChain``.
struct CombinedScore {
  var meters = 0
  var exact = 0
  /// The wheels alone, to the whole unit.
  var wheelsExact = 0
  /// Meters whose last wheel was caught past a fifth of its roll.
  var midRoll = 0
  var midRollExact = 0

  init(set: URL, reader: SequenceReader, wheelCount: Int = 5, showErrors: Bool) throws {
    let text = try String(contentsOf: set.appendingPathComponent("labels.csv"), encoding: .utf8)
    for line in text.split(separator: "\n").dropFirst() {
      let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      let image = try VisionImage(decoding: [UInt8](try Data(contentsOf: set.appendingPathComponent(fields[0]))))
      let box = fields[2].split(separator: " ").compactMap { Int($0) }
      let wheels = try reader.read(
        image.cropped(x: box[0], y: box[1], width: box[2], height: box[3]), digits: wheelCount)
      var pointers: [DialChain.Pointer] = []
      for dial in fields[3].split(separator: ";") {
        let parts = dial.split(separator: ":")
        let region = parts[0].split(separator: " ").compactMap { Int($0) }
        let reading = try PointerDial(
          in: image, region: (region[0], region[1], region[2], region[3]), counterClockwise: parts[2] == "ccw")
        pointers.append(DialChain.Pointer(position: reading.value, confidence: reading.confidence))
      }
      let chain = DialChain(wheels: wheels.symbols, wheelConfidence: wheels.confidence, dials: pointers)
      let truth = fields[1]
      let roll = Double(fields[5]) ?? 0
      meters += 1
      wheelsExact += wheels.text == String(truth.prefix(while: { $0 != "." })) ? 1 : 0
      let right = chain?.value == truth
      exact += right ? 1 : 0
      if roll > 0.2 && roll < 0.8 {
        midRoll += 1
        midRollExact += right ? 1 : 0
      }
      if showErrors && !right {
        let seen = wheels.symbols.map { symbol in
          symbol.roll.map { "\($0.from)+\(String(format: "%.1f", $0.fraction))" } ?? symbol.text
        }
        print(
          "  \(fields[0]): \(chain?.value ?? "none") (wheels \(seen.joined(separator: " "))), truth \(truth)")
      }
    }
  }

  func row(_ name: String) -> String {
    func share(_ count: Int, _ total: Int) -> String {
      String(format: "%.1f%%", 100 * Double(count) / Double(max(total, 1)))
    }
    return "\(name) | \(meters) | \(share(exact, meters)) | \(share(midRollExact, midRoll)) (\(midRoll)) | "
      + share(wheelsExact, meters)
  }
}
