import Foundation
import PhotometerClient
import PhotometerProtocol
import TestSupport
import Testing

/// The reader plugin's options from plugins.json: the cell classifier's and the meter memory's
/// shares in the pool, and OpenCV's threads.
@Suite struct ReaderOptionsTests {
  func launch(options: [String: String]) async throws -> HostClient {
    try await launchHost(
      withPlugin: "reader", command: Products.executable("photometer-reader"), role: "read", options: options)
  }

  @Test(arguments: [("cell_share", "2"), ("memory_share", "2"), ("threads", "0")])
  func anOptionOutOfRangeIsRefusedByName(option: String, value: String) async throws {
    let folder = try await Rendered.digits("wheels", count: 1, seed: 7)
    let row = try #require(try Rendered.rows(folder.appendingPathComponent("labels.csv")).first)
    let photo = Image(data: [UInt8](try Data(contentsOf: folder.appendingPathComponent(row[0]))))
    let refused = try await launch(options: [option: value])
    let failed = try await refused.send(.read(ReadRequest(image: photo)))
    await refused.close()
    guard case .failure(let error) = try #require(failed.engines.first).outcome else {
      Issue.record("the reader started with \(option) \(value): \(failed.engines)")
      return
    }
    #expect(error.message.contains(option), "\(error)")

    let alone = try await launch(options: ["cell_share": "0"])
    let read = try await alone.send(.read(ReadRequest(image: photo)))
    await alone.close()
    #expect(try #require(read.engines.first).value?.text.isEmpty == false, "\(read.engines)")
  }
}
