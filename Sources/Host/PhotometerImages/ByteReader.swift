/// Bounds-checked reads of integers from bytes: every read past the end gives `nil`.
struct ByteReader {
  let bytes: [UInt8]

  init(_ bytes: [UInt8]) {
    self.bytes = bytes
  }

  var count: Int { bytes.count }

  func starts(with prefix: [UInt8]) -> Bool {
    matches(prefix, at: 0)
  }

  func matches(_ expected: [UInt8], at offset: Int) -> Bool {
    offset >= 0 && offset + expected.count <= bytes.count && Array(bytes[offset..<offset + expected.count]) == expected
  }

  func byte(at offset: Int) -> Int? {
    offset >= 0 && offset < bytes.count ? Int(bytes[offset]) : nil
  }

  func bigEndian16(at offset: Int) -> Int? {
    guard let high = byte(at: offset), let low = byte(at: offset + 1) else { return nil }
    return high << 8 | low
  }

  func bigEndian32(at offset: Int) -> Int? {
    guard let high = bigEndian16(at: offset), let low = bigEndian16(at: offset + 2) else { return nil }
    return high << 16 | low
  }

  func littleEndian16(at offset: Int) -> Int? {
    guard let low = byte(at: offset), let high = byte(at: offset + 1) else { return nil }
    return high << 8 | low
  }

  func littleEndian24(at offset: Int) -> Int? {
    guard let low = littleEndian16(at: offset), let high = byte(at: offset + 2) else { return nil }
    return high << 16 | low
  }

  func littleEndian32(at offset: Int) -> Int? {
    guard let low = littleEndian16(at: offset), let high = littleEndian16(at: offset + 2) else { return nil }
    return high << 16 | low
  }

  /// An integer of `size` bytes (2 or 4) in the given byte order.
  func integer(at offset: Int, size: Int, bigEndian: Bool) -> Int? {
    switch (size, bigEndian) {
    case (2, true): bigEndian16(at: offset)
    case (2, false): littleEndian16(at: offset)
    case (4, true): bigEndian32(at: offset)
    default: littleEndian32(at: offset)
    }
  }

  /// A slice of the bytes, or `nil` when it runs past the end.
  func slice(_ offset: Int, _ length: Int) -> ByteReader? {
    guard offset >= 0, length >= 0, offset + length <= bytes.count else { return nil }
    return ByteReader(Array(bytes[offset..<offset + length]))
  }
}
