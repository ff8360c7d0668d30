import Foundation
import PhotometerProtocol
import PluginSupervisor
import TestSupport
import Testing

/// Read plugins of protocol 1.4 on are sent their crops uncompressed (BMP), older ones the PNG
/// they were promised; the client gets the crop as PNG, or as the photo's own bytes when the
/// photo was read whole (Tests/Fixtures/crop_format_plugin.py records what came).
@Suite struct CropFormatTests {
  /// A host with a recording read plugin of protocol 1.4 and one of 1.3; their logs' paths.
  func host() async throws -> (HostHarness, new: String, old: String) {
    let new = try writeTemporaryFile("new.log", [])
    let old = try writeTemporaryFile("old.log", [])
    let fixture = "\(Products.repository)/Tests/Fixtures/crop_format_plugin.py"
    let plugins = try PluginConfiguration.load(
      contentsOf: try writePluginsFile(
        """
        {"plugins": [
          {"name": "new", "roles": ["read"], "command": ["python3", "\(fixture)", "\(new)", "4"]},
          {"name": "old", "roles": ["read"], "command": ["python3", "\(fixture)", "\(old)", "3"]}]}
        """), programFolder: "/nonexistent")
    let host = HostHarness(plugins: plugins)
    try await host.handshake()
    return (host, new, old)
  }

  func read(_ request: ReadRequest, on host: HostHarness) async throws -> ReadResult {
    let reply = try await host.client.request(.read(request))
    guard case .readResult(let result) = reply else {
      throw ErrorReply(.internal, "expected a ReadResult, got \(reply.kind)")
    }
    return result
  }

  func lines(_ log: String) throws -> [String] {
    try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
  }

  @Test func aCropGoesUncompressedToPluginsOf1Point4AndAsPNGToOlderOnes() async throws {
    let (host, new, old) = try await host()
    let photo = Image(data: TestImages.png(1, width: 64, height: 48), name: "photo.png")
    let cropped = try await read(ReadRequest(image: photo, roi: Rect(x: 8, y: 8, width: 32, height: 16)), on: host)
    #expect(cropped.value == "42")
    #expect(try lines(new) == ["bmp"])
    #expect(try lines(old) == ["png"])
    #expect(cropped.crop.map { Array($0.data.prefix(4)) } == [0x89, 0x50, 0x4E, 0x47], "the client's crop is PNG")
    // A small photo read whole goes uncompressed too, and comes back as it was sent.
    let whole = try await read(ReadRequest(image: photo), on: host)
    #expect(try lines(new) == ["bmp", "bmp"])
    #expect(try lines(old) == ["png", "png"])
    #expect(whole.crop?.data == photo.data)
    #expect(await host.finish() == 0)
  }
}
