import Foundation
import PhotometerClient
import PhotometerProtocol
import PhotometerScoring

extension BenchCommand {
  /// The engines on one meter's images before and after learning from the first `examples` of
  /// them, confirmed (corrected to their labels) as a user would.
  func benchLearning(_ images: [LabelledImage], examples: Int) async throws {
    var options = global
    let database = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString).sqlite")
    options.db = database.path
    defer { try? FileManager.default.removeItem(at: database) }
    let taught = Array(images.prefix(examples))
    let scored = Array(images.dropFirst(examples))
    let client = try await options.connect()
    let before: Tally
    let after: Tally
    do {
      let meter = Meter(name: "bench", kind: .other, digits: images[0].text.count, countsUp: false)
      let reference = Image(data: try loadImage(images[0].path), name: images[0].path)
      _ = try await client.call(.addMeter(AddMeterRequest(meter: meter, references: [reference])), \.meterInfo)
      before = try await Self.score(scored, meter: meter.name, client: client)
      for labelled in taught {
        let outcome = await Self.read(labelled, meter: meter.name, save: true, client: client)
        guard let id = outcome.result?.readingID, id != 0 else {
          throw CommandFailure.badInput("\(labelled.path) was not saved: \(outcome.failure ?? "no reading")")
        }
        _ = try await client.call(.confirmReading(id: Int64(id), value: labelled.text), \.readingInfo)
      }
      after = try await Self.score(scored, meter: meter.name, client: client)
      await client.close()
    } catch {
      await client.close()
      throw error
    }
    if !json { print("Before learning:") }
    try report(before, images: scored.count, phase: "before")
    if !json { print("\nAfter \(examples) confirmed readings:") }
    try report(after, images: scored.count, phase: "after")
  }
}
