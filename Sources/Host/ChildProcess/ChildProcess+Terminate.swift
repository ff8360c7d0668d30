import Foundation

extension ChildProcess {
  /// How long each step of ``shutDown(closingInput:timeouts:)`` waits for the child to exit.
  public struct ShutdownTimeouts: Sendable {
    /// After the child's input is closed, before SIGTERM.
    public var polite: Duration
    /// After SIGTERM, before SIGKILL.
    public var terminate: Duration

    public init(polite: Duration, terminate: Duration) {
      self.polite = polite
      self.terminate = terminate
    }

    /// 2 s to exit on its own, then 2 s after SIGTERM.
    public static let standard = ShutdownTimeouts(polite: .seconds(2), terminate: .seconds(2))
  }

  /// Ends the child politely first: `closingInput` (which should close its standard input) and a
  /// wait, then SIGTERM and a wait, then SIGKILL.
  @discardableResult
  public func shutDown(
    closingInput: () -> Void,
    timeouts: ShutdownTimeouts = .standard
  ) async -> TerminationStatus {
    closingInput()
    if let status = await waitForExit(timeout: timeouts.polite) {
      return status
    }
    send(signal: SIGTERM)
    if let status = await waitForExit(timeout: timeouts.terminate) {
      return status
    }
    send(signal: SIGKILL)
    return await waitForExit()
  }
}
