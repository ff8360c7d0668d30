import Foundation
import PhotometerClient
import PhotometerProtocol
import TestSupport
import Testing

/// Tesseract's OpenMP threads busy-wait (a strip took 95-120 ms instead of 9 on 2 cores), so the
/// Tesseract plugin runs itself again with `OMP_THREAD_LIMIT=1` when the variable is not set.
@Suite struct TesseractThreadsTests {
  @Test func theTesseractPluginHoldsOpenMPToOneThread() async throws {
    let host = try await launchHost(
      withPlugin: "tesseract", command: Products.executable("photometer-tesseract"), role: "read")
    let result = try await host.send(
      .read(
        ReadRequest(image: Image(data: TestImages.png(3, width: 64, height: 24)), digits: 3)))
    #expect(result.engines.first?.value != nil, "\(result.engines)")
    let status = try #require(try await host.send(.listPlugins).first)
    let pid = try #require(status.pids.first)
    let environment = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))
    let variables = environment.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    #expect(variables.contains("OMP_THREAD_LIMIT=1"))
    // Still the process the host started: the same pid answers.
    _ = try await host.send(.read(ReadRequest(image: Image(data: TestImages.png(3, width: 64, height: 24)), digits: 3)))
    #expect(try await host.send(.listPlugins).first?.pids == [pid])
    await host.close()
  }
}
