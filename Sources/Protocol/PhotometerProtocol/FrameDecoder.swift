/// Why a byte stream is not a sequence of frames.
public enum FrameError: Error, Hashable, Sendable, CustomStringConvertible {
  /// A frame's length prefix is over the limit; its payload is never buffered.
  case tooLarge(length: UInt64, limit: Int)
  /// A length prefix is longer than 10 bytes or over 64 bits.
  case malformedLength
  /// The stream ended inside a frame.
  case truncated(bufferedBytes: Int)

  public var description: String {
    switch self {
    case .tooLarge(let length, let limit):
      "frame of \(length) bytes is over the \(limit)-byte limit"
    case .malformedLength:
      "frame length prefix is not a valid varint"
    case .truncated(let buffered):
      "stream ended inside a frame, \(buffered) bytes into it"
    }
  }
}

/// Splits a byte stream into frames: each a varint length, then that many bytes.
///
/// A pure state machine: feed it chunks of any size with ``append(_:)`` and take whole frames with
/// ``nextFrame()``. It does no I/O. A length over ``maxFrameSize`` is an error as soon as the
/// prefix is read, before any of the payload is kept; after an error the decoder stays failed.
public struct FrameDecoder: Sendable {
  /// The limit used when none is given: 64 MiB.
  public static let defaultMaxFrameSize = 64 << 20

  /// The largest payload accepted, in bytes.
  public let maxFrameSize: Int

  private var buffer: [UInt8] = []
  /// Bytes at the front of `buffer` that belong to frames already returned.
  private var consumed = 0
  private var failure: FrameError?

  public init(maxFrameSize: Int = FrameDecoder.defaultMaxFrameSize) {
    precondition(maxFrameSize >= 0, "maxFrameSize must not be negative")
    self.maxFrameSize = maxFrameSize
  }

  /// Bytes received but not yet returned as part of a frame.
  public var bufferedByteCount: Int { buffer.count - consumed }

  public mutating func append(_ bytes: some Sequence<UInt8>) {
    buffer.append(contentsOf: bytes)
  }

  public mutating func append(_ bytes: UnsafeRawBufferPointer) {
    buffer.append(contentsOf: bytes)
  }

  /// The next whole frame's payload, or `nil` until more bytes arrive.
  public mutating func nextFrame() throws(FrameError) -> [UInt8]? {
    if let failure {
      throw failure
    }
    switch Varint.parse(buffer[consumed...]) {
    case .incomplete:
      compact()
      return nil
    case .malformed:
      return try fail(.malformedLength)
    case .value(let length, let prefixLength):
      guard length <= UInt64(maxFrameSize) else {
        return try fail(.tooLarge(length: length, limit: maxFrameSize))
      }
      let start = consumed + prefixLength
      let end = start + Int(length)
      guard end <= buffer.count else {
        compact()
        buffer.reserveCapacity(consumed + prefixLength + Int(length))
        return nil
      }
      consumed = end
      return Array(buffer[start..<end])
    }
  }

  /// Checks, at the end of the stream, that it did not stop inside a frame.
  public func finish() throws(FrameError) {
    if let failure {
      throw failure
    }
    if bufferedByteCount > 0 {
      throw .truncated(bufferedBytes: bufferedByteCount)
    }
  }

  private mutating func fail(_ error: FrameError) throws(FrameError) -> [UInt8]? {
    failure = error
    buffer = []
    consumed = 0
    throw error
  }

  /// Drops returned bytes once they are worth the copy.
  private mutating func compact() {
    if consumed == buffer.count {
      buffer.removeAll(keepingCapacity: true)
      consumed = 0
    } else if consumed > 65_536 && consumed * 2 > buffer.count {
      buffer.removeFirst(consumed)
      consumed = 0
    }
  }
}
