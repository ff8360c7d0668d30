import Foundation
import PhotometerClient
import PhotometerProtocol
import TestSupport
import Testing

/// Read plugins get a meter's confirmed readings as examples, their crops only on demand.
@Suite struct LearningConversationTests {
  /// An example's crop is sent once to a plugin that asks for it (the test plugin with `learns`),
  /// not with every read, whatever the crop holds (here: it does not decode).
  @Test func anExampleIsAskedForOnce() async throws {
    let host = try await launchHost(
      withPlugin: "learner", command: Products.executable("photometer-testplugin"), role: "read",
      options: ["text": "123456", "learns": "yes"])
    let photo = Image(data: TestImages.png(5, width: 120, height: 40))
    _ = try await host.send(
      .addMeter(AddMeterRequest(meter: Meter(name: "Gas", kind: .gas, digits: 6), references: [photo])))
    let stored = try await host.send(
      .addReading(
        AddReadingRequest(
          meter: "Gas", value: "123456", takenAt: 1, source: .ocr, crop: TestImages.pngHeader(width: 40, height: 20))))
    _ = try await host.send(.confirmReading(id: stored.id, value: ""))

    for _ in 0..<3 {
      let result = try await host.send(.read(ReadRequest(image: photo, meter: "Gas")))
      #expect(result.engines.first?.value != nil, "\(result.engines)")
    }
    // The first read asks again with the crop; the others are one call each.
    let status = try #require(try await host.send(.listPlugins).first)
    #expect(status.requests == 4)
    await host.close()
  }

  /// The sequence reader gets a meter's confirmed readings too: the digit count they agree on
  /// constrains its reading of a meter whose settings give none, and it asks for each crop once
  /// (to learn the meter's digits from, ``DigitMemory``).
  @Test func confirmedReadingsGiveTheReaderAMetersDigitCount() async throws {
    let folder = try await Rendered.digits("wheels", count: 1, seed: 7)
    let row = try #require(try Rendered.rows(folder.appendingPathComponent("labels.csv")).first)
    let photo = Image(data: [UInt8](try Data(contentsOf: folder.appendingPathComponent(row[0]))))
    let host = try await launchHost(
      withPlugin: "reader", command: Products.executable("photometer-reader"), role: "read")
    _ = try await host.send(
      .addMeter(AddMeterRequest(meter: Meter(name: "Gas", kind: .gas), references: [photo])))
    // Two confirmed readings with one digit more (a leading wheel the window left out).
    let longer = row[1].count + 1
    for value in ["1" + row[1], "2" + row[1]] {
      let stored = try await host.send(
        .addReading(AddReadingRequest(meter: "Gas", value: value, takenAt: 1, source: .ocr, crop: photo.data)))
      _ = try await host.send(.confirmReading(id: stored.id, value: ""))
    }
    for _ in 0..<2 {
      let learnt = try await host.send(.read(ReadRequest(image: photo, meter: "Gas")))
      #expect(learnt.engines.first?.value?.text.count == longer, "\(learnt.engines)")
    }
    // The first read asks again with the two crops; the second is one call.
    let status = try #require(try await host.send(.listPlugins).first)
    #expect(status.requests == 3)
    await host.close()
  }
}
