#if canImport(Glibc)
  import Glibc
#endif

/// Why a child process could not be started.
public struct SpawnError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The program that was to run.
  public var executable: String
  /// The errno of the step that failed.
  public var errno: Int32

  public var description: String {
    "cannot start \(executable): \(String(cString: strerror(errno)))"
  }
}
