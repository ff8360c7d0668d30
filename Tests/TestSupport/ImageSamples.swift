/// A JPEG header with an EXIF `DateTimeOriginal`, for tests of reading times from photos.
public enum ImageSamples {
  public static func jpeg(date: String, offset: String? = nil, width: UInt16 = 640, height: UInt16 = 480) -> [UInt8] {
    func bigEndian(_ value: UInt32) -> [UInt8] {
      [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
    let dateBytes = Array(date.utf8) + [0]
    let offsetBytes: [UInt8] = offset.map { Array($0.utf8) + [0] } ?? []
    let exifIFD: UInt32 = 26
    let entries: UInt8 = offset == nil ? 1 : 2
    let values = exifIFD + 2 + UInt32(entries) * 12 + 4
    var tiff: [UInt8] = Array("MM".utf8) + [0, 42] + bigEndian(8)
    tiff += [0, 1, 0x87, 0x69, 0, 4] + bigEndian(1) + bigEndian(exifIFD) + bigEndian(0)
    tiff += [0, entries, 0x90, 0x03, 0, 2] + bigEndian(UInt32(dateBytes.count)) + bigEndian(values)
    if offset != nil {
      tiff += [0x90, 0x11, 0, 2] + bigEndian(UInt32(offsetBytes.count)) + bigEndian(values + UInt32(dateBytes.count))
    }
    tiff += bigEndian(0) + dateBytes + offsetBytes
    let app1 = Array("Exif".utf8) + [0, 0] + tiff
    let length = UInt16(app1.count + 2)
    return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + app1
      + [0xFF, 0xC0, 0, 17, 8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF)]
      + [UInt8](repeating: 0, count: 12) + [0xFF, 0xD9]
  }
}
