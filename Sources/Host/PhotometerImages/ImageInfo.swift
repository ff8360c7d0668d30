/// What an encoded image's header says, read without decoding the pixels.
public struct ImageInfo: Hashable, Sendable {
  public enum Format: String, Sendable {
    case jpeg, png, bmp, webp
  }

  public var format: Format
  public var width: Int
  public var height: Int
  /// When the photo was taken, from its EXIF data: `DateTimeOriginal` (local time, with
  /// `OffsetTimeOriginal` when present), as the date and time fields it states.
  public var exifDateTime: ExifDateTime?

  public init(format: Format, width: Int, height: Int, exifDateTime: ExifDateTime? = nil) {
    self.format = format
    self.width = width
    self.height = height
    self.exifDateTime = exifDateTime
  }
}

/// An EXIF date and time as written: `YYYY:MM:DD HH:MM:SS`, and the UTC offset when the photo
/// says it (`+02:00`), in seconds.
public struct ExifDateTime: Hashable, Sendable {
  public var year, month, day, hour, minute, second: Int
  public var utcOffsetSeconds: Int?

  public init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, utcOffsetSeconds: Int? = nil) {
    (self.year, self.month, self.day) = (year, month, day)
    (self.hour, self.minute, self.second) = (hour, minute, second)
    self.utcOffsetSeconds = utcOffsetSeconds
  }
}

/// The limits an image must keep to, checked from its header before anything decodes it.
public struct ImageLimits: Hashable, Sendable {
  /// The largest encoded image accepted, in bytes.
  public var maxBytes: Int
  /// The largest width or height accepted, in pixels.
  public var maxSide: Int
  /// The most pixels (width x height) accepted.
  public var maxPixels: Int

  public init(maxBytes: Int, maxSide: Int, maxPixels: Int) {
    self.maxBytes = maxBytes
    self.maxSide = maxSide
    self.maxPixels = maxPixels
  }

  /// 32 MiB, 12,000 px a side, 64 megapixels: any phone photo, no decompression bomb.
  public static let standard = ImageLimits(maxBytes: 32 << 20, maxSide: 12_000, maxPixels: 64_000_000)
}

/// Why an image is refused.
public enum ImageError: Error, Hashable, Sendable, CustomStringConvertible {
  case empty
  case tooManyBytes(Int, limit: Int)
  case unknownFormat
  case truncated(ImageInfo.Format)
  /// A JPEG whose image data stops before its end marker: a file cut short in transfer.
  case incomplete(ImageInfo.Format)
  /// A format the decoders cannot read (GIF: Debian's OpenCV 4.6 has no GIF decoder; HEIC and
  /// AVIF, a phone camera's other formats: it has no HEIF decoder either).
  case unsupported(String)
  case tooLarge(width: Int, height: Int, limits: ImageLimits)

  public var description: String {
    switch self {
    case .empty: "the image is empty"
    case .tooManyBytes(let bytes, let limit): "the image is \(bytes) bytes, over the \(limit)-byte limit"
    case .unknownFormat: "the data is not a JPEG, PNG, BMP or WebP image"
    case .truncated(let format): "the \(format.rawValue.uppercased()) image is cut short before its size is given"
    case .incomplete(let format):
      "the \(format.rawValue.uppercased()) image is cut short (its data has no end); send the whole file"
    case .unsupported("HEIC"):
      "HEIC images cannot be decoded here; send a JPEG, PNG, BMP or WebP (an iPhone takes JPEGs with Settings > Camera > Formats > Most Compatible)"
    case .unsupported(let format): "\(format) images cannot be decoded here; send a JPEG, PNG, BMP or WebP"
    case .tooLarge(let width, let height, let limits):
      "the image is \(width)x\(height), over the \(limits.maxSide) px a side and \(limits.maxPixels / 1_000_000) megapixel limit"
    }
  }
}

extension ImageInfo {
  /// Reads the header of `bytes` and checks it against `limits`.
  public static func inspect(_ bytes: [UInt8], limits: ImageLimits = .standard) throws(ImageError) -> ImageInfo {
    guard !bytes.isEmpty else { throw .empty }
    guard bytes.count <= limits.maxBytes else { throw .tooManyBytes(bytes.count, limit: limits.maxBytes) }
    let info = try header(of: ByteReader(bytes))
    guard info.width > 0, info.height > 0, info.width <= limits.maxSide, info.height <= limits.maxSide,
      info.width * info.height <= limits.maxPixels
    else {
      throw .tooLarge(width: info.width, height: info.height, limits: limits)
    }
    return info
  }

  private static func header(of data: ByteReader) throws(ImageError) -> ImageInfo {
    if data.starts(with: [0xFF, 0xD8, 0xFF]) {
      return try JPEGHeader.read(data)
    }
    if data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
      guard let width = data.bigEndian32(at: 16), let height = data.bigEndian32(at: 20) else { throw .truncated(.png) }
      return ImageInfo(format: .png, width: width, height: height)
    }
    if data.starts(with: Array("GIF8".utf8)) {
      throw .unsupported("GIF")
    }
    if data.starts(with: Array("BM".utf8)) {
      guard let width = data.littleEndian32(at: 18), let height = data.littleEndian32(at: 22) else {
        throw .truncated(.bmp)
      }
      // A negative height means rows stored top-down.
      return ImageInfo(format: .bmp, width: width, height: abs(Int(Int32(truncatingIfNeeded: height))))
    }
    if data.starts(with: Array("RIFF".utf8)) && data.matches(Array("WEBP".utf8), at: 8) {
      return try webP(data)
    }
    if data.matches(Array("ftyp".utf8), at: 4), let format = heifFormat(brand: data, at: 8) {
      throw .unsupported(format)
    }
    throw .unknownFormat
  }

  /// The name of the HEIF format whose major brand stands at `offset` of an ISO media file's
  /// `ftyp` box (a phone's HEIC photo, an AVIF image); nil for other ISO media (a video).
  private static func heifFormat(brand data: ByteReader, at offset: Int) -> String? {
    let brands = [
      "HEIC": ["heic", "heix", "heim", "heis", "hevc", "hevx"], "AVIF": ["avif", "avis"], "HEIF": ["mif1", "msf1"],
    ]
    return brands.first { _, names in names.contains { data.matches(Array($0.utf8), at: offset) } }?.key
  }

  private static func webP(_ data: ByteReader) throws(ImageError) -> ImageInfo {
    if data.matches(Array("VP8X".utf8), at: 12), let width = data.littleEndian24(at: 24),
      let height = data.littleEndian24(at: 27)
    {
      return ImageInfo(format: .webp, width: width + 1, height: height + 1)
    }
    if data.matches(Array("VP8 ".utf8), at: 12), let width = data.littleEndian16(at: 26),
      let height = data.littleEndian16(at: 28)
    {
      return ImageInfo(format: .webp, width: width & 0x3FFF, height: height & 0x3FFF)
    }
    if data.matches(Array("VP8L".utf8), at: 12), let bits = data.littleEndian32(at: 21) {
      return ImageInfo(format: .webp, width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1)
    }
    throw .truncated(.webp)
  }
}
