import Logging
import PhotometerImages
import PhotometerProtocol
import PhotometerStore
import PluginSupervisor
import Synchronization

/// The host's side of a conversation with one client, over a pair of file descriptors.
///
/// Requests run concurrently, each in a task of its own, and are answered as they finish: a slow
/// plugin does not hold up a `Ping`. `Cancel` cancels a request's task; the request is then
/// answered with ``ErrorCode/cancelled``. The conversation ends at the end of the input or after
/// `Shutdown`; either way the in-flight requests are answered first and the plugins stopped last.
public final class HostServer: Sendable {
  /// The host's name in its `Hello`.
  public static let name = "photometer-host"
  /// The host's version in its `Hello`.
  public static let version = PhotometerVersion.current

  /// How many of one client's requests may be in flight. Past that the host stops reading the
  /// client's input until one is answered, so that memory stays bounded when a client stops
  /// reading its replies.
  public static let maxRequestsInFlight = 256

  let plugins: PluginSet
  let store: MeterStore
  let logger: Logger
  let maxFrameSize: Int
  /// What an image must keep to before it is passed to a plugin.
  let imageLimits: ImageLimits
  let state = Mutex(State())
  /// Reads and identifications, stage by stage.
  let reading: ReadPipeline
  /// Meters' regions drawn for their users.
  let preview: PreviewPipeline
  /// Where requests and replies are recorded, when they are.
  let recorder: Recorder?
  /// When the plugins start.
  let pluginStart: PluginStart

  struct State {
    var handshakeDone = false
    /// The protocol the client said it speaks in its `Hello`.
    var clientVersion = ProtocolVersion.current
    var shuttingDown = false
    var inFlight: [UInt64: Task<Void, Never>] = [:]
    /// Resumed when the conversation is over.
    var finished: CheckedContinuation<Int32, Never>?
  }

  /// - Parameters:
  ///   - store: where meters and readings are kept.
  ///   - recorder: where to record every request and reply, if anywhere.
  ///   - pluginStart: all plugins at once when the conversation starts, or each when a request
  ///     first needs it.
  public init(
    plugins: PluginSet,
    store: MeterStore,
    logger: Logger,
    maxFrameSize: Int = FrameDecoder.defaultMaxFrameSize,
    imageLimits: ImageLimits = .standard,
    recorder: Recorder? = nil,
    pluginStart: PluginStart = .atLaunch
  ) {
    self.pluginStart = pluginStart
    self.plugins = plugins
    self.store = store
    self.logger = logger
    self.maxFrameSize = maxFrameSize
    self.imageLimits = imageLimits
    self.recorder = recorder
    self.reading = ReadPipeline(plugins: plugins, store: store)
    self.preview = PreviewPipeline(store: store, identify: reading.identify)
  }

  /// The host's `Hello`.
  public var hello: Hello {
    Hello(
      name: Self.name,
      softwareVersion: Self.version,
      roles: plugins.roles,
      details: ["plugins": "\(plugins.pools.count)"]
    )
  }

  /// Starts the plugins (per ``pluginStart``), serves requests read from `input` with replies written to `output` until
  /// the conversation ends, then stops the plugins. The server owns both descriptors from now on.
  ///
  /// - Returns: the exit status for the host: 0 after a clean end, 1 after a broken stream.
  public func run(input: Int32, output: Int32) async -> Int32 {
    let channel = FrameChannel(input: input, output: output, maxFrameSize: maxFrameSize)
    let replies = ReplyWriter(channel: channel, capacity: Self.maxRequestsInFlight)
    if pluginStart == .atLaunch {
      plugins.startAllInBackground()
    }
    let status = await withCheckedContinuation { continuation in
      state.withLock { $0.finished = continuation }
      channel.start { [self] event in
        handle(event, replies: replies)
      }
    }
    await replies.close()
    await plugins.stopAll()
    channel.closeOutput()
    return status
  }
}

/// When a host starts its plugins.
public enum PluginStart: String, Sendable, CaseIterable {
  /// All enabled plugins as the conversation starts, so the first request finds them ready: for
  /// an application that keeps the host running.
  case atLaunch = "at-launch"
  /// Each plugin when a request first needs it (a status request starts them all): a command
  /// that only asks the store starts none.
  case onDemand = "on-demand"
}
