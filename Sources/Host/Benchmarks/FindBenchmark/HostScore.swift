import Foundation
import PhotometerClient
import PhotometerProtocol
import PhotometerScoring
import PhotometerVision

/// Whole photos read through the host as a client sends them (no window, one at a time): the
/// host finds the rows and fans each out to its read plugins. The time is the client's, from
/// send to answer.
struct HostScore {
  var tally = FindTally()

  /// A host on `plugins`, its store in a folder of its own, warmed by one read of `warmUp` so
  /// that the plugins have loaded their models.
  static func launch(plugins: URL, folder: URL, warmUp: [UInt8]) async throws -> HostClient {
    let client = try await HostClient.launchSibling(
      plugins: plugins.path, database: folder.appendingPathComponent("find.sqlite").path)
    _ = try await client.send(.read(ReadRequest(image: Image(data: warmUp))))
    return client
  }

  mutating func add(
    _ bytes: [UInt8], kind: MeterKind, value: LabelledImage, box: Rect, client: HostClient, showErrors: Bool,
    name: String
  ) async throws {
    let started = ContinuousClock.now
    let blindResult = try await Self.read(bytes, kind: nil, client: client)
    let time = (ContinuousClock.now - started).milliseconds
    let toldStarted = ContinuousClock.now
    let toldResult = try await Self.read(bytes, kind: kind, client: client)
    // Judged as in process (FindScore): by the box around the row's digits.
    let window = blindResult.windows.first
    tally.add(
      window: window?.box, digits: window?.digits, blind: blindResult.value,
      told: toldResult.value, truth: box, value: value,
      milliseconds: time, toldMilliseconds: (ContinuousClock.now - toldStarted).milliseconds)
    if showErrors, !value.isRight(blindResult.value) {
      print(
        "  \(name) (host): \(blindResult.value.isEmpty ? "none" : blindResult.value), truth \(value.text); windows "
          + blindResult.windows.map { "\($0.value) (\(String(format: "%.2f", $0.confidence)), \($0.box))" }
          .joined(separator: ", "))
    }
    if showErrors, !value.isRight(toldResult.value) {
      print(
        "  \(name) (host), told \(kind.rawValue): \(toldResult.value.isEmpty ? "none" : toldResult.value), truth "
          + "\(value.text); windows "
          + toldResult.windows.map { "\($0.value) (\(String(format: "%.2f", $0.confidence)), \($0.box))" }
          .joined(separator: ", "))
    }
  }

  private static func read(_ bytes: [UInt8], kind: MeterKind?, client: HostClient) async throws -> ReadResult {
    var request = ReadRequest(image: Image(data: bytes))
    request.kind = kind
    return try await client.send(.read(request))
  }
}
