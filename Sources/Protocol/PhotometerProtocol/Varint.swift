/// Protobuf base-128 varints, as used for frame length prefixes.
public enum Varint {
  /// The longest encoding of a 64-bit value.
  public static let maxLength = 10

  public static func encode(_ value: UInt64) -> [UInt8] {
    var bytes: [UInt8] = []
    var rest = value
    while rest >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
      rest >>= 7
    }
    bytes.append(UInt8(rest))
    return bytes
  }

  /// The outcome of reading a varint from the start of some bytes.
  public enum Parse: Equatable, Sendable {
    /// The value and how many bytes it took.
    case value(UInt64, length: Int)
    /// The bytes end inside the varint.
    case incomplete
    /// More than ``maxLength`` bytes, or a value over 64 bits.
    case malformed
  }

  public static func parse(_ bytes: some Collection<UInt8>) -> Parse {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    var length = 0
    for byte in bytes {
      length += 1
      if length > maxLength || (length == maxLength && byte > 1) {
        return .malformed
      }
      value |= UInt64(byte & 0x7F) << shift
      if byte & 0x80 == 0 {
        return .value(value, length: length)
      }
      shift += 7
    }
    return .incomplete
  }
}
