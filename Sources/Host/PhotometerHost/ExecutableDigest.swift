import COpenSSL
import Foundation
import PhotometerProtocol

/// SHA-256 checks of plugin executables, so that a configuration can pin the binary it trusts.
enum ExecutableDigest {
  /// The lower-case hex SHA-256 of `bytes`.
  static func sha256(_ bytes: [UInt8]) -> String {
    var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var length: UInt32 = 0
    let ok = bytes.withUnsafeBytes { buffer in
      EVP_Digest(buffer.baseAddress, buffer.count, &digest, &length, EVP_sha256(), nil)
    }
    precondition(ok == 1, "EVP_Digest failed")
    return digest[..<Int(length)].map { String(format: "%02x", $0) }.joined()
  }

  /// Checks that the file at `path` has the SHA-256 `expected` (hex, any case).
  static func verify(_ path: String, sha256 expected: String) throws(ErrorReply) {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw ErrorReply(.pluginFailed, "cannot read \(path) to check its sha256")
    }
    let actual = sha256([UInt8](data))
    guard actual == expected.lowercased() else {
      throw ErrorReply(
        .pluginFailed,
        "\(path) has sha256 \(actual), not the \(expected.lowercased()) the configuration expects; refusing to start it"
      )
    }
  }
}
