/// Small images that pass the host's header checks, for tests that do not decode pixels.
public enum TestImages {
  /// A PNG header of `width` x `height` followed by bytes that make each `seed` a different image.
  public static func png(_ seed: Int = 0, width: UInt32 = 64, height: UInt32 = 48) -> [UInt8] {
    let size = [width, height].flatMap { value in (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
    let header: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
    return header + size + [8, 2, 0, 0, 0] + (0..<8).map { UInt8(truncatingIfNeeded: seed >> (8 * $0)) }
  }
}
