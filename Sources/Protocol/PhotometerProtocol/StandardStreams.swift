#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Guards a process whose standard output carries frames.
public enum StandardStreams {
  /// Moves standard output to a new descriptor for frames only, points descriptor 1 at standard
  /// error so that a stray `print` cannot corrupt the stream, and ignores SIGPIPE so that a peer
  /// that goes away makes writes fail instead of killing the process.
  ///
  /// - Returns: the descriptor to write frames to.
  public static func reserveStandardOutputForFrames() -> Int32 {
    signal(SIGPIPE, SIG_IGN)
    let frames = dup(1)
    dup2(2, 1)
    return frames
  }
}
