import Foundation

/// Paths of the package's built programs and of the repository, for tests that run them.
public enum Products {
  /// The build folder: the test bundle sits in it beside the executables.
  public static var buildFolder: String {
    let path =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    var url = URL(fileURLWithPath: path).deletingLastPathComponent()
    // On some set-ups the test binary sits inside `<Package>PackageTests.xctest/`.
    if url.pathExtension == "xctest" {
      url.deleteLastPathComponent()
    }
    return url.path
  }

  /// The path of the built program `name`, e.g. `photometer-testplugin`.
  public static func executable(_ name: String) -> String {
    "\(buildFolder)/\(name)"
  }

  /// The repository's root folder (where Package.swift is).
  public static var repository: String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .path
  }
}
