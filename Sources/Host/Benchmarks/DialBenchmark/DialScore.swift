import Foundation
import PhotometerVision

/// One set's dials read and scored against the renderer's truth.
struct DialScore {
  var errors: [Double] = []
  var milliseconds: [Double] = []

  mutating func add(
    _ reading: PointerDial, of dial: RenderedMeter.Dial, in meter: RenderedMeter, ms: Double,
    showErrors: Bool
  ) {
    milliseconds.append(ms)
    let error = dial.error(of: reading.value)
    errors.append(error)
    if showErrors && error > 0.2 {
      print(dial.errorLine(meter.file, position: reading.value, confidence: reading.confidence))
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
      + String(
        format: "%.2f | %.2f", sorted.isEmpty ? 0 : sorted[sorted.count / 2],
        sorted.isEmpty ? 0 : sorted[sorted.count * 95 / 100])
  }
}
