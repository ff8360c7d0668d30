import Foundation
import TestSupport
import Testing

@Suite struct GeneratedCodeTests {
  static var generatorsInstalled: Bool {
    ["/usr/bin/protoc-c", "/usr/bin/protoc"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
  }

  @Test(
    "The committed protobuf-c and Python code match photometer.proto",
    .enabled(if: generatorsInstalled, "protoc-c and protoc are not installed")
  )
  func generatedCodeIsCurrent() async throws {
    let output = try await runCommand("\(Products.repository)/Tools/generate-protocol", ["--check"])
    #expect(output.status == 0, "\(output.standardError)")
  }
}
