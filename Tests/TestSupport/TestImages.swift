/// Small real PNG images (stored, uncompressed), each `seed` a different picture.
public enum TestImages {
  /// A `width` x `height` RGB PNG whose pixels derive from `seed`.
  public static func png(_ seed: Int = 0, width: UInt32 = 64, height: UInt32 = 48) -> [UInt8] {
    // Tests run unoptimised: one buffer written in place, not an array literal per pixel.
    let rowBytes = 1 + 3 * Int(width)
    let raw = [UInt8](unsafeUninitializedCapacity: Int(height) * rowBytes) { buffer, count in
      for y in 0..<Int(height) {
        var at = y * rowBytes
        buffer[at] = 0  // no filter
        for x in 0..<Int(width) {
          buffer[at + 1] = UInt8(truncatingIfNeeded: x &* 7 &+ seed &* 31)
          buffer[at + 2] = UInt8(truncatingIfNeeded: y &* 5 &+ seed &* 17)
          buffer[at + 3] = UInt8(truncatingIfNeeded: (x ^ y) &+ seed)
          at += 3
        }
      }
      count = Int(height) * rowBytes
    }
    let header = bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0]
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", zlibStored(raw))
      + chunk("IEND", [])
  }

  /// Only the signature and header of a PNG claiming `width` x `height`: a decompression bomb
  /// as far as header checks go.
  public static func pngHeader(width: UInt32, height: UInt32) -> [UInt8] {
    [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
      + chunk("IHDR", bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0])
  }

  private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let body = Array(type.utf8) + data
    return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
  }

  /// zlib with uncompressed (stored) deflate blocks.
  private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [0x78, 0x01]
    var offset = 0
    repeat {
      let length = min(65_535, data.count - offset)
      let last: UInt8 = offset + length == data.count ? 1 : 0
      out += [last, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
      out += data[offset..<(offset + length)]
      offset += length
    } while offset < data.count
    var a: UInt32 = 1
    var b: UInt32 = 0
    data.withUnsafeBufferPointer { bytes in
      for byte in bytes {
        a = (a + UInt32(byte)) % 65_521
        b = (b + a) % 65_521
      }
    }
    return out + bigEndian(b << 16 | a)
  }

  private static let crcTable: [UInt32] = (0..<256).map { index in
    var crc = UInt32(index)
    for _ in 0..<8 {
      crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
    }
    return crc
  }

  private static func crc32(_ bytes: [UInt8]) -> UInt32 {
    crcTable.withUnsafeBufferPointer { table in
      var crc: UInt32 = 0xFFFF_FFFF
      for byte in bytes {
        crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
      }
      return ~crc
    }
  }

  private static func bigEndian(_ value: UInt32) -> [UInt8] {
    (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
  }
}
