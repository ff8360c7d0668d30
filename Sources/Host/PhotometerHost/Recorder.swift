import Foundation
import PhotometerProtocol
import Synchronization

/// Appends every envelope a host receives from its client and every reply it sends to a file, as
/// framed ``Recorded`` entries, so that `photometer replay` can run past traffic against another
/// plugin set. Plugins' answers are inside the replies.
///
/// Each entry is written whole with one `write` to a file opened for appending, so concurrent
/// hosts may share a file and a crash loses at most the entry being written.
public final class Recorder: Sendable {
  public struct OpenError: Error, CustomStringConvertible {
    public var description: String
  }

  private let descriptor: Mutex<Int32>

  /// Opens `path` for appending, creating it if need be.
  public init(path: String) throws(OpenError) {
    let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      throw OpenError(description: "cannot open the recording \(path): \(String(cString: strerror(errno)))")
    }
    descriptor = Mutex(fd)
  }

  deinit {
    _ = descriptor.withLock { close($0) }
  }

  /// Appends one entry; a failed write is reported to `onFailure` and recording goes on.
  func record(_ direction: Recorded.Direction, _ envelope: Envelope, onFailure: (String) -> Void) {
    let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
    let frame = Recorded(direction: direction, at: now, envelope: envelope).framed()
    let failure: String? = descriptor.withLock { fd in
      let written = frame.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      return written == frame.count ? nil : String(cString: strerror(errno))
    }
    if let failure {
      onFailure(failure)
    }
  }
}
