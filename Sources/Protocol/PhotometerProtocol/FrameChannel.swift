import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Why a frame could not be sent.
public enum ChannelError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The channel's output is closed, by this side or by the peer.
  case closed
  /// `write(2)` failed with this errno.
  case writeFailed(errno: Int32)

  public var description: String {
    switch self {
    case .closed: "the connection is closed"
    case .writeFailed(let code): "write failed: \(String(cString: strerror(code)))"
    }
  }
}

/// Envelopes over a pair of file descriptors, one frame each.
///
/// A detached thread reads the input and reports each ``Event`` in order to the handler given to
/// ``start(_:)``. ``send(_:)`` writes a whole frame under a lock, so any thread or task may send.
/// The channel owns both descriptors: the reader closes the input when it ends, and
/// ``closeOutput()`` (or the end of the channel) closes the output. Writing to a peer that is gone
/// raises SIGPIPE: a process using a channel ignores it (as
/// ``StandardStreams/reserveStandardOutputForFrames()`` does), so that the write fails instead.
public final class FrameChannel: Sendable {
  /// What the reader thread reports.
  public enum Event: Sendable {
    case envelope(Envelope)
    /// A frame arrived whole but is not a message this side accepts; the channel goes on.
    /// `firstBytes` are the frame's first bytes (at most 32), for the log.
    case undecodable(UndecodableFrame, firstBytes: [UInt8])
    /// The byte stream broke (absurd length, bad prefix, end inside a frame); the reader stopped.
    /// `firstBytes` are the first bytes (at most 32) of the read that broke it, for the log.
    case broken(FrameError, firstBytes: [UInt8])
    /// The peer closed its end cleanly; the reader stopped.
    case closed
  }

  private let input: Int32
  /// The longest frame read; ``RequestChannel`` sends none longer, since its peer would refuse it.
  public let maxFrameSize: Int
  /// The output descriptor, or -1 once closed.
  private let output: Mutex<Int32>

  /// - Parameters:
  ///   - input: read from; it must block (no `O_NONBLOCK`).
  ///   - output: written to; it must block.
  ///   - maxFrameSize: frames longer than this end the channel with ``FrameError/tooLarge(length:limit:)``.
  public init(input: Int32, output: Int32, maxFrameSize: Int = FrameDecoder.defaultMaxFrameSize) {
    self.input = input
    self.output = Mutex(output)
    self.maxFrameSize = maxFrameSize
  }

  deinit {
    closeOutput()
  }

  /// Starts the reader thread. Call once; `handler` runs on that thread, one event at a time.
  public func start(_ handler: @escaping @Sendable (Event) -> Void) {
    let input = input
    let maxFrameSize = maxFrameSize
    startDetachedThread {
      handler(Self.readLoop(input: input, maxFrameSize: maxFrameSize, handler: handler))
      close(input)
    }
  }

  /// Reads and reports frames until the stream ends; returns the last event.
  private static func readLoop(input: Int32, maxFrameSize: Int, handler: (Event) -> Void) -> Event {
    var decoder = FrameDecoder(maxFrameSize: maxFrameSize)
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { chunk.deallocate() }
    while true {
      let count = read(input, chunk.baseAddress, chunk.count)
      if count < 0 && errno == EINTR {
        continue
      }
      if count <= 0 {
        do {
          try decoder.finish()
          return .closed
        } catch {
          return .broken(error, firstBytes: [])
        }
      }
      let bytes = UnsafeRawBufferPointer(rebasing: chunk[..<count])
      decoder.append(bytes)
      do {
        while let frame = try decoder.nextFrame() {
          do {
            handler(.envelope(try Envelope(serialized: frame)))
          } catch {
            handler(.undecodable(error, firstBytes: Array(frame.prefix(32))))
          }
        }
      } catch {
        return .broken(error, firstBytes: Array(bytes.prefix(32)))
      }
    }
  }

  /// Writes one envelope as a frame. Blocks while the peer's pipe is full.
  public func send(_ envelope: Envelope) throws(ChannelError) {
    try sendFrame(envelope.framed())
  }

  /// Writes bytes that already form whole frames.
  public func sendFrame(_ bytes: [UInt8]) throws(ChannelError) {
    let result: ChannelError? = output.withLock { fd in
      guard fd >= 0 else {
        return .closed
      }
      return bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
          let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
          if written < 0 {
            if errno == EINTR {
              continue
            }
            return errno == EPIPE ? .closed : .writeFailed(errno: errno)
          }
          offset += written
        }
        return nil
      }
    }
    if let result {
      throw result
    }
  }

  /// Writes `bytes` (whole frames) only if that cannot block: when they fit in one atomic pipe
  /// write (`PIPE_BUF`) and the pipe has room now. Returns whether they were written.
  public func sendFrameIfReady(_ bytes: [UInt8]) -> Bool {
    guard bytes.count <= Int(PIPE_BUF) else {
      return false
    }
    return output.withLock { fd in
      var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
      // A pipe whose reader is gone reports an error: leave that to the writer, which reports it.
      guard fd >= 0, poll(&descriptor, 1, 0) == 1, descriptor.revents == Int16(POLLOUT) else {
        return false
      }
      let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      // A pipe write of at most PIPE_BUF bytes is all or nothing.
      return written == bytes.count
    }
  }

  /// Closes the output, which the peer reads as the end of the stream. Later sends fail.
  public func closeOutput() {
    output.withLock { fd in
      if fd >= 0 {
        close(fd)
        fd = -1
      }
    }
  }
}
