import DigitReader
import Foundation
import PhotometerClient
import PhotometerProtocol
import TestSupport
import Testing

/// The reader plugin's options from plugins.json: the networks, the cell classifier's and the
/// meter memory's shares in the pool, and OpenCV's threads.
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

  /// Several trainings in `model`, comma-separated, read in one plugin process and vote: the
  /// bundled network twice reads as it does alone. A file among them that is missing is named.
  @Test func severalModelsVoteAndAMissingOneIsNamed() async throws {
    let folder = try await Rendered.digits("wheels", count: 3, seed: 7)
    let photos = try Rendered.rows(folder.appendingPathComponent("labels.csv")).map { row in
      Image(data: [UInt8](try Data(contentsOf: folder.appendingPathComponent(row[0]))))
    }
    let bundled = "\(Products.repository)/Sources/Plugins/DigitReader/\(ReaderPanel.bundledModels[0]).onnx"
    var readings: [[String?]] = []
    for options in [[:], ["model": "\(bundled),\(bundled)"]] {
      let host = try await launch(options: options)
      var texts: [String?] = []
      for photo in photos {
        texts.append(try await host.send(.read(ReadRequest(image: photo))).engines.first?.value?.text)
      }
      await host.close()
      readings.append(texts)
    }
    #expect(readings[0].allSatisfy { $0?.isEmpty == false }, "\(readings)")
    #expect(readings[0] == readings[1])

    let missing = "/nonexistent/reader-\(UUID()).onnx"
    let refused = try await launch(options: ["model": "\(bundled),\(missing)"])
    let failed = try await refused.send(.read(ReadRequest(image: photos[0])))
    await refused.close()
    guard case .failure(let error) = try #require(failed.engines.first).outcome else {
      Issue.record("the reader started without \(missing): \(failed.engines)")
      return
    }
    #expect(error.message.contains(missing), "\(error)")
  }
}
