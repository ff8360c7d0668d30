import Foundation
import PhotometerProtocol

/// Why `plugins.json` could not be used.
public struct ConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
  public var message: String

  public init(_ message: String) {
    self.message = message
  }

  public var description: String { message }
}

extension PluginConfiguration {
  /// The file's JSON shape; field names as in docs/plugins.md.
  private struct FileEntry: Decodable {
    var name: String
    var command: [String]
    var env: [String: String]?
    var roles: [String]
    var enabled: Bool?
    var mode: String?
    var weight: Double?
    // Numbers that must be whole are read as Double: JSONDecoder calls 1e30 for an Int "not
    // valid JSON"; the range checks below name the field instead.
    var timeout_ms: Double?
    var options: [String: String]?
    var instances: Double?
    var max_queued: Double?
    var share: Double?
    var sha256: String?
  }

  private struct File: Decodable {
    var plugins: [FileEntry]
  }

  /// The weight in the vote of each enabled voting plugin of a `plugins.json`, by name: what the
  /// benchmarks weigh their in-process engines with, so that they measure the vote as configured.
  public static func votingWeights(contentsOf path: String) throws(ConfigurationError) -> [String: Double] {
    let plugins = try load(contentsOf: path, programFolder: "")
    return Dictionary(
      plugins.filter { $0.enabled && $0.mode == .vote }.map { ($0.name, $0.weight) }, uniquingKeysWith: { $1 })
  }

  /// Reads a `plugins.json`.
  ///
  /// A program path with a `/` resolves against the file's folder; a bare program name is looked
  /// up first in `programFolder` (where the host's own executable is) and then on `PATH`.
  ///
  /// - Throws: ``ConfigurationError`` naming the plugin and the field at fault.
  public static func load(contentsOf path: String, programFolder: String) throws(ConfigurationError) -> [Self] {
    let url = URL(fileURLWithPath: path)
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      throw ConfigurationError("cannot read plugin configuration \(path): \(error.localizedDescription)")
    }
    let file: File
    do {
      file = try JSONDecoder().decode(File.self, from: data)
    } catch {
      throw ConfigurationError("\(path) is not a valid plugin configuration: \(describe(error))")
    }
    if let key = Self.repeatedKey(in: [UInt8](data)) {
      throw ConfigurationError("\(path) gives the field '\(key)' twice in one object; keep one")
    }
    let folder = url.deletingLastPathComponent().path
    var names: Set<String> = []
    return try file.plugins.enumerated().map { (index, entry) throws(ConfigurationError) in
      let plugin = try PluginConfiguration(entry, folder: folder, programFolder: programFolder) {
        ConfigurationError("\(path): plugin \(entry.name.isEmpty ? "#\(index + 1)" : "'\(entry.name)'"): \($0)")
      }
      guard names.insert(plugin.name).inserted else {
        throw ConfigurationError("\(path): plugin '\(plugin.name)': name is used twice")
      }
      return plugin
    }
  }

  private init(
    _ entry: FileEntry,
    folder: String,
    programFolder: String,
    error: (String) -> ConfigurationError
  ) throws(ConfigurationError) {
    guard !entry.name.isEmpty, entry.name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
      throw error("name must be letters, digits, '-', '_' or '.'")
    }
    guard let program = entry.command.first, !program.isEmpty else {
      throw error("command must name a program")
    }
    let roles = try entry.roles.map { (name) throws(ConfigurationError) -> Role in
      guard let role = Role.allCases.first(where: { $0.description == name }) else {
        throw error(
          "roles: unknown role '\(name)' (known: \(Role.allCases.map(\.description).joined(separator: ", ")))")
      }
      return role
    }
    guard !roles.isEmpty else {
      throw error("roles must list at least one of \(Role.allCases.map(\.description).joined(separator: ", "))")
    }
    guard let mode = Mode(rawValue: entry.mode ?? "vote") else {
      throw error("mode must be 'vote' or 'shadow', not '\(entry.mode ?? "")'")
    }
    let weight = entry.weight ?? 1
    guard weight.isFinite, weight >= 0 else {
      throw error("weight must be a number of 0 or more")
    }
    guard let timeout = Self.whole(entry.timeout_ms ?? 30_000, in: 1...Self.maxTimeoutMilliseconds) else {
      throw error("timeout_ms must be a whole number from 1 to \(Self.maxTimeoutMilliseconds) (a day)")
    }
    guard let instances = Self.whole(entry.instances ?? 1, in: 1...Self.maxInstances) else {
      throw error("instances must be 1 to \(Self.maxInstances)")
    }
    guard let maxQueued = Self.whole(entry.max_queued ?? 64, in: 0...1_000_000) else {
      throw error("max_queued must be a whole number from 0 to 1000000")
    }
    let share = entry.share ?? 1
    guard share.isFinite, (0...1).contains(share) else {
      throw error("share must be a number from 0 to 1")
    }
    if let sha256 = entry.sha256, sha256.count != 64 || !sha256.allSatisfy(\.isHexDigit) {
      throw error("sha256 must be 64 hexadecimal digits")
    }
    self.init(
      name: entry.name,
      command: [Self.resolve(program, folder: folder, programFolder: programFolder)] + entry.command.dropFirst(),
      environment: entry.env ?? [:],
      roles: roles,
      enabled: entry.enabled ?? true,
      mode: mode,
      weight: weight,
      timeout: .milliseconds(timeout),
      options: entry.options ?? [:],
      instances: instances,
      maxQueued: maxQueued,
      share: share,
      sha256: entry.sha256,
      directory: folder
    )
  }

  /// The largest pool a plugin may have.
  public static let maxInstances = 64
  /// The longest timeout a plugin may have: a day.
  public static let maxTimeoutMilliseconds = 86_400_000

  /// `value` as an Int when it is a whole number within `range`.
  private static func whole(_ value: Double, in range: ClosedRange<Int>) -> Int? {
    guard value.isFinite, value == value.rounded(), Double(range.lowerBound) <= value,
      value <= Double(range.upperBound)
    else {
      return nil
    }
    return Int(value)
  }

  /// The first key that one object of the JSON `bytes` gives twice (JSONDecoder keeps the last
  /// silently). Keys are compared as written, escapes undecoded.
  static func repeatedKey(in bytes: [UInt8]) -> String? {
    var objects: [Set<String>?] = []  // per open bracket: the keys seen, nil for an array
    var expectingKey = false
    var index = 0
    while index < bytes.count {
      switch bytes[index] {
      case UInt8(ascii: "{"):
        objects.append([])
        expectingKey = true
      case UInt8(ascii: "["):
        objects.append(nil)
        expectingKey = false
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        _ = objects.popLast()
        expectingKey = false
      case UInt8(ascii: ","):
        expectingKey = (objects.last ?? nil) != nil
      case UInt8(ascii: "\""):
        var end = index + 1
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
          end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
        }
        if expectingKey, var keys = objects.last ?? nil {
          let key = String(decoding: bytes[(index + 1)..<min(end, bytes.count)], as: UTF8.self)
          guard keys.insert(key).inserted else {
            return key
          }
          objects[objects.count - 1] = keys
          expectingKey = false
        }
        index = end
      default:
        break
      }
      index += 1
    }
    return nil
  }

  static func resolve(_ program: String, folder: String, programFolder: String) -> String {
    if program.hasPrefix("/") {
      return program
    }
    if program.contains("/") {
      return joined(folder, program)
    }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    let candidates = [programFolder] + path.split(separator: ":").map(String.init)
    let found = candidates.lazy.map { "\($0)/\(program)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    // A program found nowhere keeps its name: starting it fails with a clear error then.
    return found ?? program
  }

  /// `relative` inside `folder` (made absolute from the current folder), with `.` and `..`
  /// resolved by name: `../x.py` is the file's parent's `x.py` (Foundation's `standardized`
  /// dropped the `..` of a relative URL, and it resolved beside the file).
  static func joined(_ folder: String, _ relative: String) -> String {
    let base = folder.hasPrefix("/") ? folder : FileManager.default.currentDirectoryPath + "/" + folder
    var parts: [Substring] = []
    for part in (base + "/" + relative).split(separator: "/") {
      switch part {
      case ".": continue
      case "..": _ = parts.popLast()
      default: parts.append(part)
      }
    }
    return "/" + parts.joined(separator: "/")
  }

  private static func describe(_ error: any Error) -> String {
    guard let error = error as? DecodingError else {
      return error.localizedDescription
    }
    switch error {
    case .keyNotFound(let key, let context):
      return "missing field '\(key.stringValue)' at \(pathDescription(context.codingPath))"
    case .typeMismatch(_, let context), .valueNotFound(_, let context):
      return "wrong type for \(pathDescription(context.codingPath)): \(context.debugDescription)"
    case .dataCorrupted(let context):
      return "\(context.debugDescription) at \(pathDescription(context.codingPath))"
    @unknown default:
      return "\(error)"
    }
  }

  private static func pathDescription(_ path: [any CodingKey]) -> String {
    path.isEmpty ? "the top level" : path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
  }
}
