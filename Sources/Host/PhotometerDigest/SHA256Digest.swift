import COpenSSL
import PhotometerProtocol

/// SHA-256 through OpenSSL's libcrypto.
public enum SHA256Digest {
  /// The lower-case hex SHA-256 of `bytes`.
  public static func hex(_ bytes: [UInt8]) -> String {
    var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var length: UInt32 = 0
    let ok = bytes.withUnsafeBytes { buffer in
      EVP_Digest(buffer.baseAddress, buffer.count, &digest, &length, EVP_sha256(), nil)
    }
    precondition(ok == 1, "EVP_Digest failed")
    return digest[..<Int(length)].hex()
  }

  /// A name for a list of references: the SHA-256 of their meters, image SHA-256s and ROIs, in
  /// order (``IdentifyRequest/referenceSet``). Images are not read: a reference's `sha256` names it.
  public static func referenceSet(_ references: [Reference]) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(references.count * 96)
    // Each field length-prefixed, so no two lists give the same bytes.
    func append(_ number: Int32) {
      withUnsafeBytes(of: number.littleEndian) { bytes += $0 }
    }
    for reference in references {
      for text in [reference.meter, reference.sha256] {
        append(Int32(text.utf8.count))
        bytes += text.utf8
      }
      let sides = reference.roi.map { [$0.x, $0.y, $0.width, $0.height] } ?? []
      append(Int32(sides.count))
      sides.forEach(append)
    }
    return hex(bytes)
  }
}
