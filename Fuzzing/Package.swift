// swift-tools-version: 6.0
// libFuzzer targets for the protocol; a package of their own so that the sanitizers they need
// never reach the main build. Run them with Tools/fuzz.
import Foundation
import PackageDescription

/// The main package's identity: the name of the folder it is checked out in.
let main = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
  name: "PhotometerFuzzing",
  dependencies: [.package(path: "..")],
  targets: [
    .executableTarget(
      name: "FuzzFrames",
      dependencies: [.product(name: "PhotometerProtocol", package: main)]
    ),
    .executableTarget(
      name: "FuzzEnvelope",
      dependencies: [.product(name: "PhotometerProtocol", package: main)]
    ),
  ]
)
