import Foundation
import PhotometerClient
import PhotometerProtocol
import PhotometerScoring

extension BenchCommand {
  /// The engines on one meter's images before and after learning from the first `examples` of
  /// them, confirmed (corrected to their labels) as a user would. The meter has no digit count
  /// set unless --told: what the engines learn is theirs.
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
      let digits = told ? images[0].text.filter(\.isNumber).count : 0
      let meter = Meter(name: "bench", kind: .other, digits: digits, countsUp: false)
      let reference = Image(data: try loadImage(images[0].path), name: images[0].path)
      _ = try await client.send(.addMeter(AddMeterRequest(meter: meter, references: [reference])))
      before = try await Self.score(scored, meter: meter.name, told: told, client: client)
      for labelled in taught {
        let outcome = await Self.read(labelled, meter: meter.name, told: told, save: true, client: client)
        var id = Int64(outcome.result?.readingID ?? 0)
        if id == 0 {
          // Nothing read to save: the user types the value, kept with the image as its crop.
          let crop = try loadImage(labelled.path)
          id = try await client.send(
            .addReading(AddReadingRequest(meter: meter.name, value: labelled.text, crop: crop, force: true))
          ).id
        }
        _ = try await client.send(.confirmReading(id: id, value: labelled.text))
      }
      after = try await Self.score(scored, meter: meter.name, told: told, client: client)
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
