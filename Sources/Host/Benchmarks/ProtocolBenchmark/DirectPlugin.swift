import ChildProcess
import Foundation
import PhotometerProtocol

/// The test plugin spoken to in the floor's own pattern: write a framed request, then block in
/// `read` for the framed reply on the same thread. It measures what framing and protobuf cost,
/// without the host's tasks, actor and reader threads.
struct DirectPlugin {
  let child: ChildProcess

  static func start(executable: String) async throws -> DirectPlugin {
    let child = try await ChildProcess.spawn(executable: executable, arguments: []) { _, _ in }
    let plugin = DirectPlugin(child: child)
    _ = try plugin.exchange(Envelope(requestID: 1, message: .hello(Hello(name: "benchmark", softwareVersion: "1"))))
    return plugin
  }

  func ping() throws {
    _ = try exchange(Envelope(requestID: 2, message: .ping(payload: [])))
  }

  func send(_ request: ReadRequest) throws {
    _ = try exchange(Envelope(requestID: 3, message: .read(request)))
  }

  private func exchange(_ request: Envelope) throws -> Envelope {
    let bytes = request.framed()
    guard PipeEcho.writeFully(child.standardInput, bytes) else { throw CocoaError(.fileWriteUnknown) }
    var decoder = FrameDecoder()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      if let frame = try decoder.nextFrame() {
        return try Envelope(serialized: frame)
      }
      let count = buffer.withUnsafeMutableBytes { read(child.standardOutput, $0.baseAddress, $0.count) }
      guard count > 0 else { throw CocoaError(.fileReadUnknown) }
      decoder.append(buffer[..<count])
    }
  }

  func stop() async {
    close(child.standardInput)
    close(child.standardOutput)
    _ = await child.waitForExit()
  }
}
