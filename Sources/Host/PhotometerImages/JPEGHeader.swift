/// The size and EXIF date of a JPEG, from its segments before the image data.
enum JPEGHeader {
  static func read(_ data: ByteReader) throws(ImageError) -> ImageInfo {
    var offset = 2
    var exif: ExifDateTime?
    while let marker = nextMarker(data, from: &offset) {
      // Markers without a length: restart markers, TEM, SOI.
      if (0xD0...0xD7).contains(marker) || marker == 0x01 || marker == 0xD8 {
        continue
      }
      guard marker != 0xD9, marker != 0xDA, let length = data.bigEndian16(at: offset), length >= 2 else {
        break
      }
      if marker == 0xE1, exif == nil, let segment = data.slice(offset + 2, length - 2) {
        exif = ExifReader.dateTimeOriginal(inAPP1: segment)
      }
      if isStartOfFrame(marker) {
        guard let height = data.bigEndian16(at: offset + 3), let width = data.bigEndian16(at: offset + 5) else {
          break
        }
        guard endsItsImageData(data) else {
          throw .incomplete(.jpeg)
        }
        return ImageInfo(format: .jpeg, width: width, height: height, exifDateTime: exif)
      }
      offset += length
    }
    throw .truncated(.jpeg)
  }

  /// Whether the file holds an end-of-image marker after its last scan. Image data cannot hold
  /// either marker (an 0xFF in it is followed by 0x00 or a restart marker), so the scan from the
  /// end stops at the first marker met: EOI in a whole file (past any trailing bytes), the last
  /// SOS in one cut short, whose decoder would fill the missing rows with grey.
  private static func endsItsImageData(_ data: ByteReader) -> Bool {
    let bytes = data.bytes
    var index = bytes.count - 2
    while index >= 0 {
      if bytes[index] == 0xFF {
        if bytes[index + 1] == 0xD9 { return true }
        if bytes[index + 1] == 0xDA { return false }
      }
      index -= 1
    }
    return false
  }

  /// Finds the next marker at or after `offset` (skipping fill bytes) and moves past it.
  private static func nextMarker(_ data: ByteReader, from offset: inout Int) -> Int? {
    guard data.byte(at: offset) == 0xFF else { return nil }
    while data.byte(at: offset) == 0xFF {
      offset += 1
    }
    guard let marker = data.byte(at: offset) else { return nil }
    offset += 1
    return marker
  }

  /// SOF0 to SOF15, less DHT, JPG and DAC, which share the range.
  private static func isStartOfFrame(_ marker: Int) -> Bool {
    (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker)
  }
}

/// `DateTimeOriginal` and `OffsetTimeOriginal` from a JPEG's APP1 EXIF segment.
enum ExifReader {
  private static let exifIFDPointer = 0x8769
  private static let dateTimeOriginal = 0x9003
  private static let offsetTimeOriginal = 0x9011

  static func dateTimeOriginal(inAPP1 segment: ByteReader) -> ExifDateTime? {
    guard segment.starts(with: Array("Exif".utf8) + [0, 0]), let tiff = segment.slice(6, segment.count - 6) else {
      return nil
    }
    let bigEndian: Bool
    if tiff.starts(with: Array("MM".utf8)) {
      bigEndian = true
    } else if tiff.starts(with: Array("II".utf8)) {
      bigEndian = false
    } else {
      return nil
    }
    guard let first = tiff.integer(at: 4, size: 4, bigEndian: bigEndian),
      let exifIFD = entries(tiff, at: first, bigEndian: bigEndian)[exifIFDPointer]?.valueOrOffset
    else {
      return nil
    }
    let exif = entries(tiff, at: exifIFD, bigEndian: bigEndian)
    guard let text = exif[dateTimeOriginal].flatMap({ string(tiff, $0) }), var date = parse(text) else {
      return nil
    }
    date.utcOffsetSeconds = exif[offsetTimeOriginal].flatMap { string(tiff, $0) }.flatMap(parseOffset)
    return date
  }

  private struct Entry {
    var count: Int
    var valueOrOffset: Int
    var valueAt: Int
  }

  /// An IFD's entries by tag. Bounded: at most 500 entries, none read past the end.
  private static func entries(_ tiff: ByteReader, at offset: Int, bigEndian: Bool) -> [Int: Entry] {
    guard let count = tiff.integer(at: offset, size: 2, bigEndian: bigEndian) else { return [:] }
    var result: [Int: Entry] = [:]
    for index in 0..<min(count, 500) {
      let entry = offset + 2 + index * 12
      guard let tag = tiff.integer(at: entry, size: 2, bigEndian: bigEndian),
        let items = tiff.integer(at: entry + 4, size: 4, bigEndian: bigEndian),
        let value = tiff.integer(at: entry + 8, size: 4, bigEndian: bigEndian)
      else { break }
      result[tag] = Entry(count: items, valueOrOffset: value, valueAt: entry + 8)
    }
    return result
  }

  /// An ASCII value: inline when it fits in 4 bytes, else at its offset.
  private static func string(_ tiff: ByteReader, _ entry: Entry) -> String? {
    let start = entry.count <= 4 ? entry.valueAt : entry.valueOrOffset
    guard entry.count > 0, entry.count < 64, let bytes = tiff.slice(start, entry.count) else { return nil }
    return String(decoding: bytes.bytes.prefix { $0 != 0 }, as: UTF8.self)
  }

  /// `YYYY:MM:DD HH:MM:SS`.
  static func parse(_ text: String) -> ExifDateTime? {
    let numbers = text.split(whereSeparator: { $0 == ":" || $0 == " " }).compactMap { Int($0) }
    guard numbers.count == 6, (1900...2999).contains(numbers[0]), (1...12).contains(numbers[1]),
      (1...31).contains(numbers[2]), (0...23).contains(numbers[3]), (0...59).contains(numbers[4]),
      (0...60).contains(numbers[5])
    else { return nil }
    return ExifDateTime(
      year: numbers[0], month: numbers[1], day: numbers[2], hour: numbers[3], minute: numbers[4], second: numbers[5])
  }

  /// `+HH:MM` or `-HH:MM`, in seconds.
  static func parseOffset(_ text: String) -> Int? {
    guard let sign = text.first, sign == "+" || sign == "-" else { return nil }
    let parts = text.dropFirst().split(separator: ":").compactMap { Int($0) }
    guard parts.count == 2, parts[0] <= 14, parts[1] < 60 else { return nil }
    return (sign == "-" ? -1 : 1) * (parts[0] * 3600 + parts[1] * 60)
  }
}
