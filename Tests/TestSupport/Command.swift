import Foundation

/// The outcome of a program run to its end.
public struct CommandOutput: Sendable {
  public var status: Int32
  public var standardOutput: String
  public var standardError: String

  /// Standard output's non-empty lines.
  public var lines: [String] {
    standardOutput.split(separator: "\n").map(String.init)
  }
}

/// Runs `executable` with `arguments` to its end and captures both outputs, waiting on a thread
/// of its own (see ``onOwnThread(_:)``). `input`, when given, is its standard input, else it has none;
/// `environment`, when given, is its whole environment, else it has this process's.
public func runCommand(
  _ executable: String, _ arguments: [String], directory: String? = nil, input: Data? = nil,
  environment: [String: String]? = nil
) async throws -> CommandOutput {
  try await onOwnThread {
    try runCommandBlocking(executable, arguments, directory: directory, input: input, environment: environment)
  }
}

private func runCommandBlocking(
  _ executable: String, _ arguments: [String], directory: String?, input: Data?, environment: [String: String]?
) throws -> CommandOutput {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  if let environment {
    process.environment = environment
  }
  if let directory {
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
  }
  let output = Foundation.Pipe()
  let errors = Foundation.Pipe()
  process.standardOutput = output
  process.standardError = errors
  let inputPipe = input.map { _ in Foundation.Pipe() }
  process.standardInput = inputPipe ?? FileHandle.nullDevice
  try process.run()
  if let inputPipe, let input {
    // A program that exits before reading all of it must not end this process with SIGPIPE.
    signal(SIGPIPE, SIG_IGN)
    Thread.detachNewThread {
      try? inputPipe.fileHandleForWriting.write(contentsOf: input)
      try? inputPipe.fileHandleForWriting.close()
    }
  }
  // Read both to the end before waiting, so that a full pipe cannot stall the child.
  let errorData = ResultBox<Data>()
  let finished = DispatchSemaphore(value: 0)
  Thread.detachNewThread {
    errorData.set(errors.fileHandleForReading.readDataToEndOfFile())
    finished.signal()
  }
  let outputData = output.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  finished.wait()
  return CommandOutput(
    status: process.terminationStatus,
    standardOutput: String(decoding: outputData, as: UTF8.self),
    standardError: String(decoding: errorData.value ?? Data(), as: UTF8.self)
  )
}

/// A value set once from another thread.
private final class ResultBox<Value>: @unchecked Sendable {
  // @unchecked Sendable: every access holds `lock`.
  private let lock = NSLock()
  private var stored: Value?

  func set(_ value: Value) { lock.withLock { stored = value } }
  var value: Value? { lock.withLock { stored } }
}

/// Writes `plugins` as a plugins.json in a new temporary folder and returns its path.
public func writePluginsFile(_ json: String) throws -> String {
  let folder = Scratch.folder.appendingPathComponent("photometer-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  let file = folder.appendingPathComponent("plugins.json")
  try Data(json.utf8).write(to: file)
  return file.path
}

/// Writes `bytes` to a new temporary file named `name` and returns its path.
public func writeTemporaryFile(_ name: String, _ bytes: [UInt8]) throws -> String {
  let folder = Scratch.folder.appendingPathComponent("photometer-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  let file = folder.appendingPathComponent(name)
  try Data(bytes).write(to: file)
  return file.path
}

/// A path for a new database file in a new temporary folder.
public func temporaryDatabasePath() -> String {
  Scratch.folder.appendingPathComponent("photometer-\(UUID().uuidString)/photometer.sqlite")
    .path
}
