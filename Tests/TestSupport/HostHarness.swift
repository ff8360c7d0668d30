import Foundation
import Logging
import PhotometerHost
import PhotometerProtocol

/// A ``HostServer`` running in this process over pipes, with a client connection to it.
public final class HostHarness: Sendable {
  public let server: HostServer
  public let plugins: PluginSet
  /// The client's side, for typed requests.
  public let client: RequestChannel
  private let status: Task<Int32, Never>

  /// Starts a server with `plugins`; the client has not shaken hands yet.
  public init(plugins configurations: [PluginConfiguration], maxFrameSize: Int = FrameDecoder.defaultMaxFrameSize) {
    var logger = Logger(label: "test-host")
    logger.logLevel = .critical
    let requests = Pipe()
    let replies = Pipe()
    plugins = PluginSet(
      configurations: configurations, hostHello: Hello(name: HostServer.name, softwareVersion: HostServer.version),
      logger: logger)
    server = HostServer(plugins: plugins, logger: logger, maxFrameSize: maxFrameSize)
    let server = server
    status = Task { await server.run(input: requests.read, output: replies.write) }
    client = RequestChannel(frames: FrameChannel(input: replies.read, output: requests.write))
    client.start()
  }

  /// Sends the client's `Hello` and returns the host's.
  @discardableResult
  public func handshake() async throws -> Hello {
    let reply = try await client.request(.hello(Hello(name: "test-client", softwareVersion: "1.0")))
    guard case .hello(let hello) = reply else {
      throw ErrorReply(.invalidRequest, "expected Hello, got \(reply.kind)")
    }
    return hello
  }

  /// Closes the client's output and waits for the server to end; returns its exit status.
  public func finish() async -> Int32 {
    client.closeOutput()
    return await status.value
  }

  /// Waits for the server to end by itself.
  public var exitStatus: Int32 {
    get async { await status.value }
  }
}

/// A plugin configuration running the test plugin with `options`.
public func testPlugin(
  _ name: String,
  roles: [Role] = [.read, .identify],
  mode: PluginConfiguration.Mode = .vote,
  weight: Double = 1,
  timeout: Duration = .seconds(10),
  options: [String: String] = [:]
) -> PluginConfiguration {
  PluginConfiguration(
    name: name,
    command: [Products.executable("photometer-testplugin")],
    roles: roles,
    mode: mode,
    weight: weight,
    timeout: timeout,
    options: options
  )
}
