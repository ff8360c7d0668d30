import ChildProcess
import Foundation

/// The floor: a child that echoes fixed-size messages over raw pipes, no framing, no protobuf.
struct PipeEcho {
  /// The message size: about that of a framed small request.
  static let messageSize = 16

  let child: ChildProcess

  /// The child's side: echo until the input ends.
  static func run() -> Int32 {
    var buffer = [UInt8](repeating: 0, count: messageSize)
    while readFully(0, &buffer) {
      guard writeFully(1, buffer) else { return 1 }
    }
    return 0
  }

  /// Starts the echoing child from `executable` (this benchmark, with `--pipe-echo`).
  static func start(executable: String) async throws -> PipeEcho {
    let child = try await ChildProcess.spawn(executable: executable, arguments: ["--pipe-echo"]) { _, line in
      FileHandle.standardError.write(Data("echo: \(line)\n".utf8))
    }
    return PipeEcho(child: child)
  }

  /// One write-then-read exchange.
  func exchange() throws {
    var buffer = [UInt8](repeating: 1, count: Self.messageSize)
    guard Self.writeFully(child.standardInput, buffer), Self.readFully(child.standardOutput, &buffer) else {
      throw CocoaError(.fileReadUnknown)
    }
  }

  func stop() async {
    close(child.standardInput)
    close(child.standardOutput)
    _ = await child.waitForExit()
  }

  static func readFully(_ fd: Int32, _ buffer: inout [UInt8]) -> Bool {
    var offset = 0
    while offset < buffer.count {
      let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + offset, $0.count - offset) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return false }
      offset += count
    }
    return true
  }

  static func writeFully(_ fd: Int32, _ buffer: [UInt8]) -> Bool {
    var offset = 0
    while offset < buffer.count {
      let count = buffer.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return false }
      offset += count
    }
    return true
  }
}
