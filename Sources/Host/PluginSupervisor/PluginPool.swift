import Logging
import PhotometerProtocol

/// A plugin's processes: ``PluginConfiguration/instances`` of them, each serving one request at a
/// time, with a first-come-first-served queue for requests that find them all busy.
///
/// The queue holds at most ``PluginConfiguration/maxQueued`` requests; a request past that gets
/// ``ErrorCode/busy`` for this plugin at once.
public actor PluginPool {
  public nonisolated let configuration: PluginConfiguration
  let instances: [PluginInstance]
  private let logger: Logger

  private struct Waiter {
    let id: UInt64
    let continuation: CheckedContinuation<Int, any Error>
  }

  /// Instances with no request, by index.
  private var idle: [Int]
  private var waiters: [Waiter] = []
  /// Waiting for every instance to be idle.
  private var drainers: [CheckedContinuation<Void, Never>] = []
  private var nextWaiterID: UInt64 = 0
  private var requests: UInt64 = 0
  private var errors: UInt64 = 0
  private var timeouts: UInt64 = 0
  private var latencies = LatencyWindow()
  /// Requests offered to the plugin, taken or not, for ``takesShare()``.
  private var offered: UInt64 = 0

  /// - Parameter adaptCrop: makes a read request's BMP crop PNG for a plugin older than protocol
  ///   1.4 (``CropAdapter``).
  public init(
    configuration: PluginConfiguration, hostHello: Hello, policy: RestartPolicy = .standard,
    adaptCrop: CropAdapter? = nil, logger: Logger
  ) {
    self.configuration = configuration
    let crashes = CrashRecord(policy: policy)
    instances = (0..<configuration.instances).map {
      PluginInstance(
        configuration: configuration, number: $0, hostHello: hostHello, adaptCrop: adaptCrop, crashes: crashes,
        logger: logger)
    }
    idle = Array(instances.indices)
    self.logger = logger
  }

  /// Starts every instance.
  public func start() async {
    await withTaskGroup(of: Void.self) { group in
      for instance in instances {
        group.addTask { await instance.start() }
      }
    }
  }

  /// Whether the plugin takes the next request, spreading its ``PluginConfiguration/share`` evenly:
  /// with 0.25 it takes the 4th, 8th, 12th... request, exactly a quarter of any run of them.
  public func takesShare() -> Bool {
    let share = configuration.share
    guard share < 1 else {
      return true
    }
    offered += 1
    return (Double(offered) * share).rounded(.down) > (Double(offered - 1) * share).rounded(.down)
  }

  /// Sends `message` to the first free instance, waiting in line for one if all are busy.
  public func call<Response>(_ request: PluginRequest<Response>) async -> PluginCall<Response> {
    let index: Int
    do {
      index = try await acquire()
    } catch {
      let reply = ErrorReply.from(error, plugin: configuration.name)
      errors += 1
      return PluginCall(outcome: .failure(reply), version: "", milliseconds: 0)
    }
    let call = await instances[index].call(request.message)
    release(index)
    record(call)
    return call.map { reply in
      guard let answer = request.answer(in: reply) else {
        return .failure(
          ErrorReply(
            .pluginFailed, "the plugin answered a \(request.message.kind) with \(reply.kind)",
            plugin: configuration.name))
      }
      return .success(answer)
    }
  }

  /// Stops every instance once the requests in flight have been answered.
  public func drain() async {
    if idle.count < instances.count {
      await withCheckedContinuation { drainers.append($0) }
    }
    for waiter in waiters {
      waiter.continuation.resume(throwing: ErrorReply(.shuttingDown, "the plugin is being replaced"))
    }
    waiters = []
    await withTaskGroup(of: Void.self) { group in
      for instance in instances {
        group.addTask { await instance.stop() }
      }
    }
  }

  private func acquire() async throws -> Int {
    if !idle.isEmpty {
      return idle.removeFirst()
    }
    guard waiters.count < configuration.maxQueued else {
      throw ErrorReply(
        .busy,
        "all \(instances.count) instance(s) are busy and \(waiters.count) requests are waiting, the limit; "
          + "try again later or raise instances or max_queued")
    }
    nextWaiterID += 1
    let id = nextWaiterID
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        waiters.append(Waiter(id: id, continuation: continuation))
      }
    } onCancel: {
      Task { await self.cancelWaiter(id) }
    }
  }

  private func cancelWaiter(_ id: UInt64) {
    guard let position = waiters.firstIndex(where: { $0.id == id }) else {
      return
    }
    waiters.remove(at: position).continuation.resume(throwing: CancellationError())
  }

  /// Hands a freed instance to the longest-waiting request, or marks it idle.
  private func release(_ index: Int) {
    if waiters.isEmpty {
      idle.append(index)
      if idle.count == instances.count {
        drainers.forEach { $0.resume() }
        drainers = []
      }
    } else {
      waiters.removeFirst().continuation.resume(returning: index)
    }
  }

  private func record(_ call: PluginCall<Message>) {
    requests += 1
    switch call.outcome {
    case .success:
      latencies.record(call.milliseconds)
    case .failure(let error):
      errors += 1
      if error.code == .timeout {
        timeouts += 1
      }
    }
  }

  /// The plugin's state and counters, over all its instances.
  public func status() async -> PluginStatus {
    var parts: [PluginInstance.Status] = []
    for instance in instances {
      parts.append(await instance.status())
    }
    let state: PluginState
    if !configuration.enabled {
      state = .disabled
    } else if let shared = Self.sharedState(parts) {
      state = shared == .ready && idle.count < instances.count ? .busy : shared
    } else {
      state = parts.contains { $0.state == .ready } ? (idle.isEmpty ? .busy : .ready) : .starting
    }
    return PluginStatus(
      name: configuration.name,
      state: state,
      pids: parts.compactMap(\.pid),
      roles: parts.lazy.compactMap(\.roles).first ?? configuration.roles,
      version: parts.lazy.map(\.version).first { !$0.isEmpty } ?? "",
      mode: configuration.mode.rawValue,
      instances: UInt32(instances.count),
      restarts: parts.reduce(0) { $0 + $1.restarts },
      requests: requests,
      errors: errors,
      timeouts: timeouts,
      queued: UInt32(waiters.count),
      medianMilliseconds: latencies.percentile(0.5),
      p95Milliseconds: latencies.percentile(0.95),
      reason: parts.lazy.map(\.reason).first { !$0.isEmpty } ?? ""
    )
  }

  /// The state every instance is in, if they agree.
  private static func sharedState(_ parts: [PluginInstance.Status]) -> PluginState? {
    let states = Set(parts.map(\.state))
    return states.count == 1 ? states.first : nil
  }
}
