import Foundation
import PhotometerClient
import PhotometerProtocol
import TestSupport
import Testing

/// The keypoint plugin's options from plugins.json: a query's threads (the answer is the same
/// for any number, MatcherTests proves that in process) are checked when the host starts it.
@Suite struct KeypointOptionsTests {
  func launch(options: [String: String]) async throws -> HostClient {
    try await launchHost(
      withPlugin: "keypoints", command: Products.executable("photometer-keypoints"), role: "identify",
      options: options)
  }

  @Test func threadsOutOfRangeAreRefusedByNameAndOneThreadIdentifies() async throws {
    let folder = try await Rendered.household(meters: 3, queries: 1, unknown: 0)
    let references = try Rendered.rows(folder.appendingPathComponent("meters.csv")).map { row in
      Reference(
        meter: row[0], image: Image(data: [UInt8](try Data(contentsOf: folder.appendingPathComponent(row[1])))),
        sha256: "")
    }
    let query = try #require(try Rendered.rows(folder.appendingPathComponent("queries.csv")).first)
    let photo = Image(data: [UInt8](try Data(contentsOf: folder.appendingPathComponent(query[0]))))

    let refused = try await launch(options: ["threads": "0"])
    let failed = try await refused.send(.identify(IdentifyRequest(image: photo, references: references)))
    await refused.close()
    #expect(failed.meter.isEmpty)
    guard case .failure(let error) = try #require(failed.plugins.first).outcome else {
      Issue.record("the keypoint plugin started with threads 0: \(failed.plugins)")
      return
    }
    #expect(error.message.contains("threads"), "\(error)")

    let single = try await launch(options: ["threads": "1"])
    let named = try await single.send(.identify(IdentifyRequest(image: photo, references: references)))
    await single.close()
    #expect(named.meter == query[1], "\(named.plugins)")
  }
}
