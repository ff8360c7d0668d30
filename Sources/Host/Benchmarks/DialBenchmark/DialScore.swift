import Foundation
import PhotometerVision

/// One set's dials read and scored against the renderer's truth.
struct DialScore {
  var errors: [Double] = []
  var milliseconds: [Double] = []

  init(set: URL, showErrors: Bool) throws {
    let text = try String(contentsOf: set.appendingPathComponent("labels.csv"), encoding: .utf8)
    for line in text.split(separator: "\n").dropFirst() {
      let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      let image = try VisionImage(decoding: [UInt8](try Data(contentsOf: set.appendingPathComponent(fields[0]))))
      let truths = fields[4].split(separator: "|").compactMap { Double($0) }
      for (dial, truth) in zip(fields[3].split(separator: ";"), truths) {
        let parts = dial.split(separator: ":")
        let box = parts[0].split(separator: " ").compactMap { Int($0) }
        let started = ContinuousClock.now
        let reading = try PointerDial(
          in: image, region: (box[0], box[1], box[2], box[3]), counterClockwise: parts[2] == "ccw")
        milliseconds.append(Double((ContinuousClock.now - started).components.attoseconds) / 1e15)
        let apart = abs(reading.value - truth)
        let error = min(apart, 10 - apart)
        errors.append(error)
        if showErrors && error > 0.2 {
          print(
            "  \(fields[0]) dial x\(parts[1]) \(parts[2]): read \(String(format: "%.2f", reading.value)) "
              + "(\(String(format: "%.2f", reading.confidence))), truth \(truth)")
        }
      }
    }
  }

  func row(_ name: String) -> String {
    let count = Double(errors.count)
    let sorted = milliseconds.sorted()
    func share(_ limit: Double) -> String {
      String(format: "%.1f%%", 100 * Double(errors.filter { $0 <= limit }.count) / max(count, 1))
    }
    return "\(name) | \(errors.count) | \(share(0.2)) | \(share(0.5)) | "
      + String(format: "%.3f", errors.reduce(0, +) / max(count, 1)) + " | "
      + String(format: "%.2f | %.2f", sorted[sorted.count / 2], sorted[sorted.count * 95 / 100])
  }
}
