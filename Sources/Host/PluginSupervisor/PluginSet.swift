import Logging
import PhotometerProtocol
import Synchronization

/// Every configured plugin's pool, the fan-out of a request to those with the right role, and
/// reloading the configuration while requests are in flight.
public final class PluginSet: Sendable {
  /// Reads the plugin configuration, for ``reload()``.
  public typealias Source = @Sendable () throws(ConfigurationError) -> [PluginConfiguration]

  private let hostHello: Hello
  private let policy: RestartPolicy
  private let adaptCrop: CropAdapter?
  public let logger: Logger
  let reloadSource: Source?
  private let state: Mutex<State>

  private struct State {
    var pools: [PluginPool]
    /// The first start of the pools, while it runs; statuses wait for it to settle.
    var startup: Task<Void, Never>?
  }

  /// - Parameters:
  ///   - hostHello: what the host says of itself; each plugin also gets its options.
  ///   - source: where ``reload()`` reads the configuration again.
  ///   - adaptCrop: makes a read request's BMP crop PNG for a plugin older than protocol 1.4.
  public init(
    configurations: [PluginConfiguration],
    hostHello: Hello,
    policy: RestartPolicy = .standard,
    source: Source? = nil,
    adaptCrop: CropAdapter? = nil,
    logger: Logger
  ) {
    self.hostHello = hostHello
    self.policy = policy
    self.adaptCrop = adaptCrop
    self.reloadSource = source
    self.logger = logger
    state = Mutex(State(pools: []))
    let pools = configurations.map(makePool)
    state.withLock { $0.pools = pools }
  }

  func makePool(_ configuration: PluginConfiguration) -> PluginPool {
    PluginPool(configuration: configuration, hostHello: hostHello, policy: policy, adaptCrop: adaptCrop, logger: logger)
  }

  /// The pools in configuration order.
  public var pools: [PluginPool] {
    state.withLock { $0.pools }
  }

  func setPools(_ pools: [PluginPool]) {
    state.withLock { $0.pools = pools }
  }

  /// The roles of the enabled plugins.
  public var roles: [Role] {
    Role.allCases.filter { !pools(with: $0).isEmpty }
  }

  /// The enabled pools with `role`, in configuration order.
  func pools(with role: Role) -> [PluginPool] {
    pools.filter { $0.configuration.enabled && $0.configuration.roles.contains(role) }
  }

  /// The weight of each plugin in the vote.
  public var weights: [String: Double] {
    Dictionary(pools.map { ($0.configuration.name, $0.configuration.weight) }, uniquingKeysWith: { $1 })
  }

  /// Starts every enabled plugin at once; failures are logged and reported by ``statuses()``.
  public func startAll() async {
    await startAllInBackground().value
  }

  /// Starts every enabled plugin without waiting; ``statuses()`` waits for it.
  @discardableResult
  public func startAllInBackground() -> Task<Void, Never> {
    let pools = pools
    let task = Task { await Self.startPools(pools) }
    state.withLock { $0.startup = task }
    return task
  }

  static func startPools(_ pools: [PluginPool]) async {
    await withTaskGroup(of: Void.self) { group in
      for pool in pools where pool.configuration.enabled {
        group.addTask { await pool.start() }
      }
    }
  }

  /// Stops every plugin once its requests in flight are answered.
  public func stopAll() async {
    await Self.drainPools(pools)
  }

  static func drainPools(_ pools: [PluginPool]) async {
    await withTaskGroup(of: Void.self) { group in
      for pool in pools {
        group.addTask { await pool.drain() }
      }
    }
  }

  /// Every plugin's status, once the first start of all of them has settled; when none was
  /// made (plugins started on demand), this makes it, so the status says how each starts.
  public func statuses() async -> [PluginStatus] {
    await (state.withLock { $0.startup } ?? startAllInBackground()).value
    var statuses: [PluginStatus] = []
    for pool in pools {
      statuses.append(await pool.status())
    }
    return statuses
  }

  /// Runs `conversation` with every enabled plugin with `role` that `asked` selects and that
  /// takes its share of this request (see ``PluginConfiguration/share``), at once; the calls in
  /// configuration order.
  func fanOut<Response>(
    role: Role, where asked: (PluginConfiguration) -> Bool = { _ in true },
    _ conversation: @escaping @Sendable (PluginPool) async -> PluginCall<Response>
  ) async -> [(PluginConfiguration, PluginCall<Response>)] {
    var targets: [PluginPool] = []
    for pool in pools(with: role) where asked(pool.configuration) {
      if await pool.takesShare() {
        targets.append(pool)
      }
    }
    return await withTaskGroup(of: (Int, PluginCall<Response>).self) { group in
      for (index, pool) in targets.enumerated() {
        group.addTask { (index, await conversation(pool)) }
      }
      var calls = [PluginCall<Response>?](repeating: nil, count: targets.count)
      for await (index, call) in group {
        calls[index] = call
      }
      return zip(targets, calls).map { ($0.configuration, $1!) }
    }
  }
}
