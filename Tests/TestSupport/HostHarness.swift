import Foundation
import Logging
import PhotometerHost
import PhotometerProtocol
import PhotometerStore
import PluginSupervisor

/// A ``HostServer`` running in this process over pipes, with the client's ends of the pipes.
public struct InProcessHost: Sendable {
  public let plugins: PluginSet
  /// Write requests here.
  public let requests: Int32
  /// Read replies here.
  public let replies: Int32
  /// The server's exit status, once it has ended.
  public let status: Task<Int32, Never>

  public init(
    plugins configurations: [PluginConfiguration],
    maxFrameSize: Int = FrameDecoder.defaultMaxFrameSize,
    source: PluginSet.Source? = nil,
    pluginStart: PluginStart = .atLaunch
  ) {
    // 1 MiB for requests, as the host gives its plugins' pipes: in-process clients write from the
    // cooperative threads, and blocking there on a full pipe would starve the in-process host of
    // threads. Replies keep the default, so that a client that stops reading is felt soon.
    let requestPipe = Pipe(capacity: 1 << 20)
    let replyPipe = Pipe()
    plugins = makePluginSet(configurations, source: source)
    let logger = plugins.logger
    let database = Scratch.folder
      .appendingPathComponent("photometer-\(UUID().uuidString)/photometer.sqlite").path
    // A test host without a working store is useless: fail loudly.
    let store = try! MeterStore(path: database)
    let server = HostServer(
      plugins: plugins, store: store, logger: logger, maxFrameSize: maxFrameSize, pluginStart: pluginStart)
    status = Task { await server.run(input: requestPipe.read, output: replyPipe.write) }
    requests = requestPipe.write
    replies = replyPipe.read
  }
}

/// An in-process host with a typed client connection to it.
public struct HostHarness: Sendable {
  public let host: InProcessHost
  public let client: RequestChannel

  public var plugins: PluginSet { host.plugins }

  /// Starts a server with `plugins`; the client has not shaken hands yet.
  public init(
    plugins: [PluginConfiguration],
    maxFrameSize: Int = FrameDecoder.defaultMaxFrameSize,
    source: PluginSet.Source? = nil,
    pluginStart: PluginStart = .atLaunch
  ) {
    host = InProcessHost(plugins: plugins, maxFrameSize: maxFrameSize, source: source, pluginStart: pluginStart)
    client = RequestChannel(frames: FrameChannel(input: host.replies, output: host.requests))
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
    return await host.status.value
  }

  /// Waits for the server to end by itself.
  public var exitStatus: Int32 {
    get async { await host.status.value }
  }
}

/// An in-process host with a raw client: the test chooses request ids and bytes.
public struct RawHostHarness: Sendable {
  public let host: InProcessHost
  public let peer: RawPeer

  public init(plugins: [PluginConfiguration], maxFrameSize: Int = FrameDecoder.defaultMaxFrameSize) {
    host = InProcessHost(plugins: plugins, maxFrameSize: maxFrameSize)
    peer = RawPeer(input: host.replies, output: host.requests)
  }

  /// Sends `Hello` as request 1 and waits for the answer.
  public func handshake() async {
    peer.send(Envelope(requestID: 1, message: .hello(Hello(name: "raw-client", softwareVersion: "1.0"))))
    _ = await peer.replies(to: 1, count: 1)
  }

  public func finish() async -> Int32 {
    peer.closeOutput()
    return await host.status.value
  }
}

/// A restart policy quick enough for tests: a crash loop backs off 1.5 s; 3 ends in a minute
/// quarantine.
public let quickRestarts = RestartPolicy(
  loopWindow: .seconds(30), loopBackoff: .milliseconds(1500), quarantineAfter: 3, quarantineWindow: .seconds(60))

/// A plugin set as the host makes one, quiet, with ``quickRestarts``.
public func makePluginSet(
  _ configurations: [PluginConfiguration],
  policy: RestartPolicy = quickRestarts,
  source: PluginSet.Source? = nil
) -> PluginSet {
  var logger = Logger(label: "test-host")
  logger.logLevel = .critical
  return PluginSet(
    configurations: configurations, hostHello: Hello(name: HostServer.name, softwareVersion: HostServer.version),
    policy: policy, source: source, adaptCrop: HostServer.adaptCrop, logger: logger)
}

/// A plugin configuration running the test plugin with `options`.
public func testPlugin(
  _ name: String,
  roles: [Role] = [.read, .identify],
  mode: PluginConfiguration.Mode = .vote,
  weight: Double = 1,
  timeout: Duration = eventLimit,
  instances: Int = 1,
  maxQueued: Int = 64,
  options: [String: String] = [:],
  share: Double = 1
) -> PluginConfiguration {
  PluginConfiguration(
    name: name,
    command: [Products.executable("photometer-testplugin")],
    roles: roles,
    mode: mode,
    weight: weight,
    timeout: timeout,
    options: options,
    instances: instances,
    maxQueued: maxQueued,
    share: share
  )
}
