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

  /// A copy of the shipped plugins.json whose plugins wait ``eventLimit`` for an answer: tests
  /// check what the shipped plugins answer, and while other tests compute beside them on 2 cores
  /// an answer can take longer than the 10 s a read plugin is given. Files it names relative to
  /// the repository (a plugin's script) are named by their full path in the copy, which lives
  /// elsewhere.
  public static func shippedPlugins() -> String {
    var text = patient((try? String(contentsOfFile: "\(repository)/plugins.json", encoding: .utf8)) ?? "")
    let quoted = try! NSRegularExpression(pattern: #""([^"/][^"]*/[^"]*)""#)
    let strings = quoted.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
      Range($0.range(at: 1), in: text).map { String(text[$0]) }
    }
    for file in Set(strings) where FileManager.default.fileExists(atPath: "\(repository)/\(file)") {
      text = text.replacingOccurrences(of: "\"\(file)\"", with: "\"\(repository)/\(file)\"")
    }
    // Every plugin keeps its caches in the scratch folder, not in the machine's ~/.cache; edited
    // as text, so that tests can still find an entry by its lines.
    precondition(!text.contains("\"env\""), "the shipped plugins.json sets an env: merge XDG_CACHE_HOME into it")
    text = text.replacingOccurrences(
      of: "\"command\": [", with: "\"env\": {\"XDG_CACHE_HOME\": \"\(scratchCaches)\"}, \"command\": [")
    // A test without its plugins cannot run: fail loudly.
    return try! writeTemporaryFile("plugins.json", Array(text.utf8))
  }

  /// Where the plugins that tests start keep their caches (`XDG_CACHE_HOME`): in the test
  /// process's scratch folder, removed with it, so that a test run leaves nothing in the
  /// machine's `~/.cache/photometer` (the identify plugins' learnt references).
  public static var scratchCaches: String {
    Scratch.folder.appendingPathComponent("caches").path
  }

  /// A plugins.json's text with every plugin waiting ``eventLimit`` for an answer.
  public static func patient(_ pluginsJSON: String) -> String {
    pluginsJSON.replacingOccurrences(
      of: #""timeout_ms": [0-9]+"#, with: "\"timeout_ms\": \(eventLimit.components.seconds * 1000)",
      options: .regularExpression)
  }
}
