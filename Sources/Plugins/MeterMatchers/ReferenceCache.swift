import Foundation
import PhotometerProtocol

/// A folder where an identify plugin keeps what it learnt of each reference photo, so that a new
/// process (after a restart) reads it back instead of asking for the photo and learning it again.
/// One file per photo and shape: named by the photo's SHA-256 and a key of everything that shaped
/// what was learnt (settings, window, the learner's version); a line of JSON, then bytes. A file
/// read back is marked used (its modification date), and ``prune(unusedFor:now:)`` removes those
/// unused for long: the references of deleted meters and of windows since moved.
public struct ReferenceCache {
  let folder: URL

  public init(folder: URL) {
    self.folder = folder
  }

  /// How long a file may go unused before ``prune(unusedFor:now:)`` removes it.
  public static let keptUnused: TimeInterval = 90 * 24 * 3600

  /// `$XDG_CACHE_HOME/photometer/NAME`, or `~/.cache/photometer/NAME`: where a plugin keeps its
  /// learnt references unless told otherwise.
  public static func defaultFolder(_ name: String) -> String {
    let environment = ProcessInfo.processInfo.environment
    let base =
      environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache").path
    return URL(fileURLWithPath: base).appendingPathComponent("photometer").appendingPathComponent(name).path
  }

  /// The `cache` option of the plugin whose folder is `name` (a plugin's `Hello`).
  public static func option(_ name: String) -> OptionSpec {
    OptionSpec(
      name: "cache",
      description: "a folder where learnt references are kept across restarts (none: learn them in every process)",
      defaultValue: defaultFolder(name))
  }

  /// The folder a plugin's `cache` option names (``defaultFolder(_:)`` of `name` when the option
  /// is absent; none for `none` or empty), its unused files pruned: what a plugin's start does.
  public static func open(option: String?, name: String) -> URL? {
    let path = option ?? defaultFolder(name)
    guard path != "none", !path.isEmpty else { return nil }
    let folder = URL(fileURLWithPath: path)
    ReferenceCache(folder: folder).prune()
    return folder
  }

  /// Whether `text` is a SHA-256 in hexadecimal, as the cache's file names begin.
  static func isSHA256(_ text: Substring) -> Bool {
    text.count == 64 && text.allSatisfy(\.isHexDigit)
  }

  /// The file for a photo learnt as `shape` says, nil for a SHA-256 that is no hexadecimal name.
  func file(_ sha256: String, shape: String) -> URL? {
    guard Self.isSHA256(sha256[...]) else { return nil }
    return folder.appendingPathComponent("\(sha256)-\(shape)")
  }

  /// Writes `header` and `payload` atomically. A cache that cannot be written costs the next
  /// process time, not answers, so errors are ignored.
  func write<Header: Encodable>(_ header: Header, _ payload: [UInt8], sha256: String, shape: String) {
    guard let file = file(sha256, shape: shape), let line = try? JSONEncoder().encode(header) else { return }
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try? (line + Data([0x0A]) + Data(payload)).write(to: file, options: .atomic)
  }

  /// The header and payload written for the photo and shape, the file marked used; nil when
  /// there is no such file or it does not read.
  func read<Header: Decodable>(_: Header.Type, sha256: String, shape: String) -> (Header, [UInt8])? {
    guard let file = file(sha256, shape: shape), let data = try? Data(contentsOf: file),
      let newline = data.firstIndex(of: 0x0A),
      let header = try? JSONDecoder().decode(Header.self, from: data[..<newline])
    else { return nil }
    try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: file.path)
    return (header, [UInt8](data[(newline + 1)...]))
  }

  /// Removes the cache's files (named by a SHA-256 as ``file(_:shape:)`` names them; nothing else
  /// in the folder) neither written nor read back for `unusedFor` seconds. Returns how many. At
  /// most once a day (a hidden `.pruned` file says when): looking at every file of a large cache
  /// takes about a second, which a plugin's start should not pay each time.
  @discardableResult
  public func prune(unusedFor age: TimeInterval = keptUnused, now: Date = Date()) -> Int {
    let manager = FileManager.default
    let marker = folder.appendingPathComponent(".pruned")
    if let last = try? marker.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate,
      now.timeIntervalSince(last) < 24 * 3600
    {
      return 0
    }
    guard manager.fileExists(atPath: folder.path) else { return 0 }
    try? Data().write(to: marker)
    guard
      let names = try? manager.contentsOfDirectory(
        at: folder, includingPropertiesForKeys: [.contentModificationDateKey], options: [.skipsHiddenFiles])
    else { return 0 }
    var removed = 0
    for file in names {
      let name = file.lastPathComponent
      guard let dash = name.firstIndex(of: "-"), Self.isSHA256(name[..<dash]),
        let used = try? file.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate,
        now.timeIntervalSince(used) > age
      else { continue }
      if (try? manager.removeItem(at: file)) != nil { removed += 1 }
    }
    return removed
  }
}
