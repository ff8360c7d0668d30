import Foundation
import PhotometerClient
import PhotometerProtocol

/// Whole meters read through the host as an app reads a registered meter: each set up from its
/// reference photo (five wheels, the wheels' window and the dials drawn there), then its photo read
/// with the meter named. The host finds the meter in the photo (the identify homography),
/// straightens the window and the dials into the reference's frame and reads them, the wheels by
/// the read plugins and the dials by the dials plugin, one value by `DialChain`.
struct HostScore {
  var meters = 0
  var exact = 0
  /// Meters whose reading was flagged `low-confidence`: of those read wrong, and of those read right.
  var flaggedWrong = 0
  var flaggedRight = 0
  /// Meters the host found in their photo (no `meter-not-located` flag).
  var located = 0
  /// Of those, meters placed by the reference's face (`located-by-face`), not by the vote.
  var byFace = 0
  var midRoll = 0
  var midRollExact = 0
  /// The wrong meters by what they got wrong, when the meters were set up with their dials.
  var mistakes = MistakeTally()
  var withDials = false
  /// Each dial's pointer as the host read it, against the truth: within 0.2 of a division.
  var pointers = 0
  var pointersClose = 0
  /// The pointers' errors summed, in divisions (the mean is what a finest dial's digit turns on).
  var pointerError = 0.0
  var milliseconds: [Double] = []

  /// A host on `plugins`, its store in `folder`.
  static func launch(plugins: URL, folder: URL) async throws -> HostClient {
    try await HostClient.launchSibling(
      plugins: plugins.path, database: folder.appendingPathComponent("dials.sqlite").path)
  }

  /// Sets up `meter` from its reference and reads its photo; a meter of a set written without
  /// `--references` is left out. With `withDials` false the meter is set up with its wheels' window
  /// alone, and the value is the wheels' whole number. The window is set up with `margin` of its
  /// height to spare above and below (0: the window's frame as drawn). With `used` (cubic metres),
  /// the meter counts up and holds a reading that much below the truth, taken a day before; `tag`
  /// names the meter apart from the same one set up otherwise.
  mutating func add(
    _ meter: RenderedMeter, folder: URL, client: HostClient, withDials: Bool = true, margin: Double = 0,
    used: Double? = nil, tag: String = "", showErrors: Bool
  ) async throws {
    guard let reference = meter.reference else { return }
    let dials =
      withDials
      ? reference.dials.map { dial in
        Dial(region: dial.region, factor: Double(dial.factor) ?? 0, counterClockwise: dial.counterClockwise)
      } : []
    let truth = withDials ? meter.value : String(meter.value.prefix { $0 != "." })
    let name = tag + (withDials ? meter.file : "wheels-\(meter.file)")
    let setUp = Meter(
      name: name, kind: .water, roi: Self.window(reference.wheels, margin: margin), digits: 5, countsUp: used != nil,
      dials: dials)
    let referencePhoto = Image(data: [UInt8](try Data(contentsOf: folder.appendingPathComponent(reference.file))))
    _ = try await client.send(.addMeter(AddMeterRequest(meter: setUp, references: [referencePhoto])))
    if let used, let value = Double(truth) {
      let dayAgo = Int64(Date().timeIntervalSince1970 * 1000) - 86_400_000
      let earlier = String(format: "%010.4f", max(0, value - used))
      _ = try await client.send(.addReading(AddReadingRequest(meter: name, value: earlier, takenAt: dayAgo)))
    }
    let photo = Image(data: [UInt8](try Data(contentsOf: folder.appendingPathComponent(meter.file))))
    let started = ContinuousClock.now
    let result = try await client.send(.read(ReadRequest(image: photo, meter: name)))
    milliseconds.append((ContinuousClock.now - started).milliseconds)
    let right = result.value == truth
    meters += 1
    exact += right ? 1 : 0
    self.withDials = withDials
    if withDials {
      mistakes.add(result.value, of: meter)
    }
    if result.flags.contains(.lowConfidence) {
      flaggedWrong += right ? 0 : 1
      flaggedRight += right ? 1 : 0
    }
    located += result.flags.contains(.meterNotLocated) ? 0 : 1
    byFace += result.flags.contains(.locatedByFace) ? 1 : 0
    if result.dials.count == meter.dials.count {
      for (symbol, dial) in zip(result.dials, meter.dials) {
        let error = dial.error(of: symbol.position)
        let close = error <= 0.2
        pointers += 1
        pointerError += error
        pointersClose += close ? 1 : 0
        if showErrors && !close {
          print(dial.errorLine(meter.file, via: " (host)", position: symbol.position, confidence: symbol.confidence))
        }
      }
    }
    if meter.wheelRoll > 0.2 && meter.wheelRoll < 0.8 {
      midRoll += 1
      midRollExact += right ? 1 : 0
    }
    if showErrors && !right {
      let value = result.value.isEmpty ? "none" : result.value
      print("  \(meter.file) (host): \(value), truth \(truth) \(result.flags)")
    }
  }

  /// `window` grown by `margin` of its height above and below, not above the photo's top.
  static func window(_ window: Rect, margin: Double) -> Rect {
    let spare = Int32((margin * Double(window.height)).rounded())
    let top = max(0, window.y - spare)
    return Rect(x: window.x, y: top, width: window.width, height: window.y + window.height + spare - top)
  }

  func row(_ name: String) -> String {
    let sorted = milliseconds.sorted()
    let p50 = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    return "\(name) (host) | \(meters) | \(share(exact, meters)) | \(share(midRollExact, midRoll)) (\(midRoll)) | "
      + (withDials ? "wrong: \(mistakes.summary); " : "")
      + "low-confidence \(flaggedWrong) of \(meters - exact) wrong, \(flaggedRight) of \(exact) right; "
      + "located \(share(located, meters)) (by the face \(byFace)), \(String(format: "%.1f", p50)) ms p50"
      + (pointers > 0
        ? "; pointers within 0.2 \(share(pointersClose, pointers)) of \(pointers), mean error "
          + String(format: "%.3f", pointerError / Double(pointers)) : "")
  }
}
