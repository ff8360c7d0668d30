import CPhotometerProtocol

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Guards a process whose standard output carries frames.
public enum StandardStreams {
  /// Moves standard output to a new descriptor for frames only, points descriptor 1 at standard
  /// error (line-buffered) so that a stray `print` cannot corrupt the stream and reaches the log
  /// at once, and ignores SIGPIPE so that a peer that goes away makes writes fail instead of
  /// killing the process.
  ///
  /// - Returns: the descriptor to write frames to.
  public static func reserveStandardOutputForFrames() -> Int32 {
    signal(SIGPIPE, SIG_IGN)
    let frames = dup(1)
    dup2(2, 1)
    photometer_line_buffer_stdout()
    return frames
  }
}
