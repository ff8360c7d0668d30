import Foundation
import TestSupport
import Testing

/// A Swift package outside the repository that depends on this one by path, as an application
/// embedding Photometer would: it builds against the `PhotometerClient` and `PhotometerProtocol`
/// products alone and reads a photo through the built host.
@Suite struct OutsidePackageTests {
  @Test func aPackageOutsideTheRepositoryBuildsAgainstTheClientAndReads() async throws {
    let package = Scratch.folder.appendingPathComponent("client-user-\(UUID())")
    let sources = package.appendingPathComponent("Sources/ReadOne")
    try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      atPath: "\(Products.repository)/Tests/Fixtures/ClientUser/main.swift",
      toPath: sources.appendingPathComponent("main.swift").path)
    let identity = URL(fileURLWithPath: Products.repository).lastPathComponent.lowercased()
    try Data(
      """
      // swift-tools-version: 6.0
      import PackageDescription

      let package = Package(
        name: "ReadOne",
        dependencies: [.package(path: "\(Products.repository)")],
        targets: [
          .executableTarget(
            name: "ReadOne",
            dependencies: [
              .product(name: "PhotometerClient", package: "\(identity)"),
              .product(name: "PhotometerProtocol", package: "\(identity)"),
            ])
        ]
      )

      """.utf8
    ).write(to: package.appendingPathComponent("Package.swift"))
    // The repository's own resolution, when it has one, so that the same versions are used.
    let resolved = "\(Products.repository)/Package.resolved"
    if FileManager.default.fileExists(atPath: resolved) {
      try FileManager.default.copyItem(
        atPath: resolved, toPath: package.appendingPathComponent("Package.resolved").path)
    }
    let build = try await runCommand("/usr/bin/env", ["swift", "build", "--package-path", package.path])
    #expect(build.status == 0, "\(build.standardOutput)\n\(build.standardError)")

    let counters = try await Rendered.digits("wheels", count: 1, seed: 17)
    let truth = try #require(try Rendered.rows(counters.appendingPathComponent("labels.csv")).first)
    let plugins = try writePluginsFile(
      #"{"plugins": [{"name": "reader", "command": ["photometer-reader"], "roles": ["read"]}]}"#)
    let read = try await runCommand(
      package.appendingPathComponent(".build/debug/ReadOne").path,
      [
        Products.executable("photometer-host"), plugins, temporaryDatabasePath(),
        counters.appendingPathComponent(truth[0]).path,
      ])
    #expect(read.status == 0, "\(read.standardError)")
    #expect(read.lines == [truth[1]])
  }
}
