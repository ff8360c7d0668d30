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
}
