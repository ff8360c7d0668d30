import Synchronization
import Testing

@testable import PluginSupervisor

/// The restart policy's decisions on a clock the test moves: back-off in a crash loop, a
/// restart at once after a quiet spell, quarantine after too many ends, old ends forgotten.
@Suite struct RestartPolicyTests {
  /// A clock that stands still until the test moves it.
  final class TestClock: Sendable {
    private let instant = Mutex(ContinuousClock.now)
    var now: ContinuousClock.Instant { instant.withLock { $0 } }
    func advance(_ duration: Duration) { instant.withLock { $0 += duration } }
  }

  let policy = RestartPolicy(
    loopWindow: .seconds(30), loopBackoff: .seconds(10), quarantineAfter: 3, quarantineWindow: .seconds(120))

  @Test func anEndSoonAfterARestartBacksOffAndALateOneRestartsAtOnce() {
    let clock = TestClock()
    var patient = policy
    patient.quarantineAfter = 5
    let record = CrashRecord(policy: patient) { clock.now }
    #expect(record.ended(lastRestarted: nil) == .restartNow)
    let restarted = clock.now
    clock.advance(.seconds(29))
    #expect(record.ended(lastRestarted: restarted) == .restartAfter(.seconds(10)))
    clock.advance(.seconds(2))
    #expect(record.ended(lastRestarted: restarted) == .restartNow, "31 s after the restart")
  }

  @Test func tooManyEndsInTheWindowQuarantine() {
    let clock = TestClock()
    let record = CrashRecord(policy: policy) { clock.now }
    #expect(record.ended(lastRestarted: nil) == .restartNow)
    #expect(record.ended(lastRestarted: nil) == .restartNow)
    #expect(record.ended(lastRestarted: nil) == .quarantine(Self.reason(3)))
    #expect(record.quarantine == Self.reason(3))
  }

  @Test func endsOutsideTheQuarantineWindowAreForgotten() {
    let clock = TestClock()
    let record = CrashRecord(policy: policy) { clock.now }
    #expect(record.ended(lastRestarted: nil) == .restartNow)
    clock.advance(.seconds(60))
    #expect(record.ended(lastRestarted: nil) == .restartNow)
    clock.advance(.seconds(61))
    // The first end is 121 s old: two ends in the window, not three.
    #expect(record.ended(lastRestarted: nil) == .restartNow)
    #expect(record.quarantine == nil)
    clock.advance(.seconds(1))
    #expect(record.ended(lastRestarted: nil) == .quarantine(Self.reason(3)))
    // Quarantine holds until the configuration is reloaded (a new record), whatever the time.
    clock.advance(.seconds(3600))
    #expect(record.ended(lastRestarted: nil) == .quarantine(Self.reason(3)))
  }

  static func reason(_ ends: Int) -> String {
    "quarantined after \(ends) crashes within 120.0 seconds; fix the plugin and reload the configuration"
  }
}
