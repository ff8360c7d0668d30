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
  func generatedCodeIsCurrent() throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "\(Products.repository)/Tools/generate-protocol")
    process.arguments = ["--check"]
    let errors = Foundation.Pipe()
    process.standardError = errors
    try process.run()
    process.waitUntilExit()
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(process.terminationStatus == 0, "\(message)")
  }
}
