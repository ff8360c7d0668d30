import CPhotometerProtocol

/// One entry of a host's recording: an envelope the host received or sent, and when.
///
/// A recording is a file of frames, each a `Recorded` message (see photometer.proto) preceded by
/// its length as a varint, so ``FrameDecoder`` reads it back like the wire.
public struct Recorded: Hashable, Sendable {
  public enum Direction: Hashable, Sendable {
    /// From the client to the host.
    case request
    /// From the host to the client.
    case reply
  }

  public var direction: Direction
  /// Unix time in milliseconds.
  public var at: Int64
  public var envelope: Envelope

  public init(direction: Direction, at: Int64, envelope: Envelope) {
    self.direction = direction
    self.at = at
    self.envelope = envelope
  }

  /// The entry as one frame of a recording.
  public func framed() -> [UInt8] {
    let arena = Arena()
    var recorded = Photometer__V1__Recorded()
    photometer__v1__recorded__init(&recorded)
    recorded.direction =
      direction == .request
      ? PHOTOMETER__V1__RECORDED__DIRECTION__DIRECTION_REQUEST : PHOTOMETER__V1__RECORDED__DIRECTION__DIRECTION_REPLY
    recorded.at_ms = at
    recorded.envelope = arena.bytes(envelope.serialized())
    return withUnsafePointer(to: &recorded) { pointer in
      let size = photometer__v1__recorded__get_packed_size(pointer)
      let prefix = Varint.encode(UInt64(size))
      return prefix
        + [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
          count = photometer__v1__recorded__pack(pointer, buffer.baseAddress!)
        }
    }
  }

  /// Decodes one frame's payload of a recording.
  public init(serialized bytes: [UInt8]) throws(WireError) {
    let unpacked = bytes.withUnsafeBufferPointer { buffer in
      photometer__v1__recorded__unpack(nil, buffer.count, buffer.baseAddress)
    }
    guard let unpacked else {
      throw .undecodable
    }
    defer { photometer__v1__recorded__free_unpacked(unpacked, nil) }
    switch unpacked.pointee.direction {
    case PHOTOMETER__V1__RECORDED__DIRECTION__DIRECTION_REQUEST: direction = .request
    case PHOTOMETER__V1__RECORDED__DIRECTION__DIRECTION_REPLY: direction = .reply
    default: throw .invalid("a recorded envelope without its direction")
    }
    at = unpacked.pointee.at_ms
    do {
      envelope = try Envelope(serialized: [UInt8](protobuf: unpacked.pointee.envelope))
    } catch {
      throw error.reason
    }
  }
}
