import Synchronization

/// When a plugin whose process ended unexpectedly (crash, exit, garbage on its output, killed for
/// a timeout, failed start) is started again, and when it is given up on.
public struct RestartPolicy: Hashable, Sendable {
  /// An instance that ends within this long of its last restart is in a crash loop...
  public var loopWindow: Duration
  /// ...and waits this long before its next start; otherwise it restarts at once.
  public var loopBackoff: Duration
  /// This many unexpected ends of a plugin's instances within ``quarantineWindow`` quarantine
  /// the plugin: it is not started again until the configuration is reloaded.
  public var quarantineAfter: Int
  public var quarantineWindow: Duration

  public init(loopWindow: Duration, loopBackoff: Duration, quarantineAfter: Int, quarantineWindow: Duration) {
    self.loopWindow = loopWindow
    self.loopBackoff = loopBackoff
    self.quarantineAfter = quarantineAfter
    self.quarantineWindow = quarantineWindow
  }

  /// A restart within 30 s of the last start waits 10 s; 5 ends within 2 minutes quarantine.
  public static let standard = RestartPolicy(
    loopWindow: .seconds(30), loopBackoff: .seconds(10), quarantineAfter: 5, quarantineWindow: .seconds(120))
}

/// The unexpected ends of one plugin's instances, shared by its pool, and the quarantine they lead to.
final class CrashRecord: Sendable {
  /// What to do after an unexpected end.
  enum Decision: Equatable {
    case restartNow
    case restartAfter(Duration)
    case quarantine(String)
  }

  private let policy: RestartPolicy
  private let now: @Sendable () -> ContinuousClock.Instant
  private let state = Mutex<(ends: [ContinuousClock.Instant], quarantine: String?)>(([], nil))

  /// - Parameter now: the time of an end; tests pass a clock of their own to check the policy
  ///   without waiting for it.
  init(policy: RestartPolicy, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
    self.policy = policy
    self.now = now
  }

  /// Why the plugin is quarantined, or `nil`.
  var quarantine: String? {
    state.withLock { $0.quarantine }
  }

  /// Records an end of an instance that was last restarted (started after an end) at
  /// `restarted`, if ever, and decides what follows.
  func ended(lastRestarted restarted: ContinuousClock.Instant?) -> Decision {
    let now = now()
    return state.withLock { state in
      if let reason = state.quarantine {
        return .quarantine(reason)
      }
      state.ends = state.ends.filter { now - $0 < policy.quarantineWindow } + [now]
      if state.ends.count >= policy.quarantineAfter {
        let reason =
          "quarantined after \(state.ends.count) crashes within \(policy.quarantineWindow); "
          + "fix the plugin and reload the configuration"
        state.quarantine = reason
        return .quarantine(reason)
      }
      if let restarted, now - restarted < policy.loopWindow {
        return .restartAfter(policy.loopBackoff)
      }
      return .restartNow
    }
  }
}
