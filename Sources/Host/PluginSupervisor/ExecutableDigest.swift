import Foundation
import PhotometerDigest
import PhotometerProtocol

/// SHA-256 checks of plugin executables, so that a configuration can pin the binary it trusts.
enum ExecutableDigest {
  /// Checks that the file at `path` has the SHA-256 `expected` (hex, any case).
  static func verify(_ path: String, sha256 expected: String) throws(ErrorReply) {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw ErrorReply(.pluginFailed, "cannot read \(path) to check its sha256")
    }
    let actual = SHA256Digest.hex([UInt8](data))
    guard actual == expected.lowercased() else {
      throw ErrorReply(
        .pluginFailed,
        "\(path) has sha256 \(actual), not the \(expected.lowercased()) the configuration expects; refusing to start it"
      )
    }
  }
}
