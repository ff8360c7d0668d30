/// How a child process ended.
public enum TerminationStatus: Hashable, Sendable, CustomStringConvertible {
  case exited(code: Int32)
  case signaled(signal: Int32)

  public var description: String {
    switch self {
    case .exited(let code): "exited with status \(code)"
    case .signaled(let signal): "killed by signal \(signal)"
    }
  }

  /// Whether the child exited with status 0.
  public var isSuccess: Bool { self == .exited(code: 0) }

  init(waitStatus status: Int32) {
    // The WIFEXITED family are macros that Swift does not import.
    let signal = status & 0x7F
    self = signal == 0 ? .exited(code: (status >> 8) & 0xFF) : .signaled(signal: signal)
  }
}
