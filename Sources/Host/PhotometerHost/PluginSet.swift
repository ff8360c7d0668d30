import Logging
import PhotometerProtocol
import Synchronization

/// Every configured plugin, and the fan-out of a request to those with the right role.
public final class PluginSet: Sendable {
  public let instances: [PluginInstance]
  private let logger: Logger
  /// The first start of every plugin, while it runs; statuses wait for it to settle.
  private let startup = Mutex<Task<Void, Never>?>(nil)

  /// - Parameter hostHello: what the host says of itself; each plugin also gets its options.
  public init(configurations: [PluginConfiguration], hostHello: Hello, logger: Logger) {
    self.instances = configurations.map {
      PluginInstance(configuration: $0, hostHello: hostHello, logger: logger)
    }
    self.logger = logger
  }

  /// The roles of the enabled plugins.
  public var roles: [Role] {
    Role.allCases.filter { role in
      instances.contains { $0.configuration.enabled && $0.configuration.roles.contains(role) }
    }
  }

  /// Starts every enabled plugin at once; failures are logged and reported by ``statuses()``.
  public func startAll() async {
    let instances = instances
    let task = Task {
      await withTaskGroup(of: Void.self) { group in
        for instance in instances where instance.configuration.enabled {
          group.addTask { await instance.start() }
        }
      }
    }
    startup.withLock { $0 = task }
    await task.value
  }

  public func stopAll() async {
    await withTaskGroup(of: Void.self) { group in
      for instance in instances {
        group.addTask { await instance.stop() }
      }
    }
  }

  /// Every plugin's status, once the first start of all of them (if under way) has settled.
  public func statuses() async -> [PluginStatus] {
    await startup.withLock { $0 }?.value
    var statuses: [PluginStatus] = []
    for instance in instances {
      statuses.append(await instance.status())
    }
    return statuses
  }

  /// The weight of each plugin in the vote.
  public var weights: [String: Double] {
    Dictionary(uniqueKeysWithValues: instances.map { ($0.configuration.name, $0.configuration.weight) })
  }

  /// Sends `message` to every enabled plugin with `role` at once and collects every outcome,
  /// in configuration order.
  public func fanOut(_ message: Message, role: Role) async -> [(PluginConfiguration, PluginCall)] {
    let targets = instances.filter { $0.configuration.enabled && $0.configuration.roles.contains(role) }
    return await withTaskGroup(of: (Int, PluginCall).self) { group in
      for (index, instance) in targets.enumerated() {
        group.addTask { (index, await instance.call(message)) }
      }
      var calls = [PluginCall?](repeating: nil, count: targets.count)
      for await (index, call) in group {
        calls[index] = call
      }
      return zip(targets, calls).map { ($0.configuration, $1!) }
    }
  }
}
