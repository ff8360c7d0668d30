"""Length-delimited framing for the Photometer protocol (docs/protocol.md).

Each frame is a protobuf varint holding the payload's length, then the payload: one serialized
photometer.v1.Envelope. This is the "delimited" form of Java's writeDelimitedTo.
"""

MAX_FRAME_SIZE = 64 * 1024 * 1024


class FrameError(Exception):
    """The byte stream is not a sequence of frames."""


def encode(envelope):
    """The envelope as one frame."""
    payload = envelope.SerializeToString()
    length = len(payload)
    prefix = bytearray()
    while length >= 0x80:
        prefix.append((length & 0x7F) | 0x80)
        length >>= 7
    prefix.append(length)
    return bytes(prefix) + payload


def read_frame(stream, max_frame_size=MAX_FRAME_SIZE):
    """The next frame's payload from a binary stream, or None at a clean end of the stream."""
    length = 0
    shift = 0
    for index in range(10):
        byte = stream.read(1)
        if not byte:
            if index == 0:
                return None
            raise FrameError("stream ended inside a length prefix")
        length |= (byte[0] & 0x7F) << shift
        if byte[0] < 0x80:
            break
        shift += 7
    else:
        raise FrameError("length prefix is longer than 10 bytes")
    if length > max_frame_size:
        raise FrameError(f"frame of {length} bytes is over the {max_frame_size}-byte limit")
    payload = stream.read(length)
    if len(payload) != length:
        raise FrameError(f"stream ended {len(payload)} bytes into a {length}-byte frame")
    return payload
