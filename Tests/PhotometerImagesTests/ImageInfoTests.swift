import PhotometerImages
import Testing

@Suite struct ImageInfoTests {
  static func png(width: UInt32, height: UInt32) -> [UInt8] {
    [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
      + bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0]
  }

  static func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
  }

  /// A JPEG header: SOI, an APP1 EXIF segment with DateTimeOriginal (and an offset), then SOF0.
  static func jpeg(width: UInt16, height: UInt16, date: String?, offset: String? = nil) -> [UInt8] {
    var segments: [UInt8] = [0xFF, 0xD8]
    if let date {
      // Big-endian TIFF: IFD0 with one entry pointing to the EXIF IFD, which holds the date.
      let dateBytes = Array(date.utf8) + [0]
      let offsetBytes: [UInt8] = offset.map { Array($0.utf8) + [0] } ?? []
      let exifIFDOffset: UInt32 = 8 + 2 + 12 + 4
      let entries: UInt16 = offset == nil ? 1 : 2
      let valuesStart = exifIFDOffset + 2 + UInt32(entries) * 12 + 4
      var tiff: [UInt8] = Array("MM".utf8) + [0, 42] + bigEndian(8)
      tiff += [0, 1] + [0x87, 0x69, 0, 4] + bigEndian(1) + bigEndian(exifIFDOffset) + bigEndian(0)
      tiff += [0, UInt8(entries)]
      tiff += [0x90, 0x03, 0, 2] + bigEndian(UInt32(dateBytes.count)) + bigEndian(valuesStart)
      if !offsetBytes.isEmpty {
        tiff +=
          [0x90, 0x11, 0, 2] + bigEndian(UInt32(offsetBytes.count)) + bigEndian(valuesStart + UInt32(dateBytes.count))
      }
      tiff += bigEndian(0) + dateBytes + offsetBytes
      let app1 = Array("Exif".utf8) + [0, 0] + tiff
      let length = UInt16(app1.count + 2)
      segments += [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + app1
    }
    segments += [
      0xFF, 0xC0, 0, 17, 8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF),
    ]
    segments += [UInt8](repeating: 0, count: 12) + [0xFF, 0xD9]
    return segments
  }

  @Test func readsAPNGSize() throws {
    let info = try ImageInfo.inspect(Self.png(width: 640, height: 480))
    #expect(info == ImageInfo(format: .png, width: 640, height: 480))
  }

  @Test func readsAJPEGSizeAndItsEXIFDate() throws {
    let info = try ImageInfo.inspect(
      Self.jpeg(width: 4032, height: 3024, date: "2026:11:20 07:45:12", offset: "+01:00"))
    #expect(info.format == .jpeg)
    #expect(info.width == 4032 && info.height == 3024)
    #expect(
      info.exifDateTime
        == ExifDateTime(year: 2026, month: 11, day: 20, hour: 7, minute: 45, second: 12, utcOffsetSeconds: 3600))
  }

  @Test func readsAJPEGWithoutEXIF() throws {
    let info = try ImageInfo.inspect(Self.jpeg(width: 100, height: 50, date: nil))
    #expect(info.width == 100 && info.height == 50 && info.exifDateTime == nil)
  }

  @Test func refusesADecompressionBombFromItsHeader() {
    #expect(throws: ImageError.tooLarge(width: 50_000, height: 50_000, limits: .standard)) {
      try ImageInfo.inspect(Self.png(width: 50_000, height: 50_000))
    }
    let error = ImageError.tooLarge(width: 50_000, height: 50_000, limits: .standard)
    #expect(error.description == "the image is 50000x50000, over the 12000 px a side and 64 megapixel limit")
  }

  @Test func refusesWhatIsNotAnImage() {
    #expect(throws: ImageError.empty) { try ImageInfo.inspect([]) }
    #expect(throws: ImageError.unknownFormat) { try ImageInfo.inspect(Array("hello, world".utf8)) }
    #expect(throws: ImageError.truncated(.png)) {
      try ImageInfo.inspect(Array(Self.png(width: 1, height: 1).prefix(18)))
    }
    #expect(throws: ImageError.truncated(.jpeg)) { try ImageInfo.inspect([0xFF, 0xD8, 0xFF, 0xE0, 0x00]) }
  }

  @Test func refusesAGIFByName() {
    let gif = Array("GIF89a".utf8) + [10, 0, 10, 0, 0, 0, 0, 0x3B]
    #expect(throws: ImageError.unsupported("GIF")) { try ImageInfo.inspect(gif) }
    #expect(ImageError.unsupported("GIF").description.contains("send a JPEG, PNG, BMP or WebP"))
  }

  /// A phone's HEIC photo (or an AVIF image) is named, with what to send instead; other ISO media
  /// files are no image.
  @Test func refusesAHEICPhotoByName() {
    func isoMedia(_ brand: String) -> [UInt8] {
      [0, 0, 0, 20] + Array("ftyp\(brand)".utf8) + [0, 0, 0, 0] + Array(brand.utf8)
    }
    #expect(throws: ImageError.unsupported("HEIC")) { try ImageInfo.inspect(isoMedia("heic")) }
    #expect(throws: ImageError.unsupported("AVIF")) { try ImageInfo.inspect(isoMedia("avif")) }
    #expect(throws: ImageError.unsupported("HEIF")) { try ImageInfo.inspect(isoMedia("mif1")) }
    #expect(throws: ImageError.unknownFormat) { try ImageInfo.inspect(isoMedia("isom")) }
    let message = ImageError.unsupported("HEIC").description
    #expect(message.contains("send a JPEG") && message.contains("Most Compatible"), "\(message)")
  }

  @Test func refusesAJPEGCutShortInItsImageData() throws {
    // The header, a scan whose data holds stuffed 0xFF bytes and a restart marker, then EOI.
    let header = Array(Self.jpeg(width: 10, height: 10, date: nil).dropLast(2))
    let scan: [UInt8] = [0xFF, 0xDA, 0, 8, 1, 1, 0, 0, 63, 0] + [0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56]
    let whole = header + scan + [0xFF, 0xD9]
    #expect(try ImageInfo.inspect(whole).width == 10)
    #expect(try ImageInfo.inspect(whole + [0, 0, 0]).width == 10, "bytes after the end marker are allowed")
    for length in header.count..<whole.count {
      #expect(throws: ImageError.incomplete(.jpeg)) { try ImageInfo.inspect(Array(whole.prefix(length))) }
    }
  }

  @Test func refusesTooManyBytes() {
    let limits = ImageLimits(maxBytes: 10, maxSide: 100, maxPixels: 1000)
    #expect(throws: ImageError.tooManyBytes(29, limit: 10)) {
      try ImageInfo.inspect(Self.png(width: 1, height: 1), limits: limits)
    }
  }

  @Test func takesAOneByOneImage() throws {
    #expect(try ImageInfo.inspect(Self.png(width: 1, height: 1)).width == 1)
  }

  @Test func survivesEveryTruncationOfAJPEG() {
    let full = Self.jpeg(width: 10, height: 10, date: "2026:01:02 03:04:05")
    for length in 0..<full.count {
      _ = try? ImageInfo.inspect(Array(full.prefix(length)))
    }
  }
}
