import Foundation

/// One folder for all that this test process writes (databases, rendered sets, plugin files),
/// removed when the process exits: runs used to leave thousands of folders in the temporary
/// directory.
public enum Scratch {
  public static let folder: URL = {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("photometer-tests-\(getpid())")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(at: Scratch.folder) }
    return url
  }()
}
