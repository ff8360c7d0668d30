/// The kind of a failure that crosses the wire. Values a newer peer sends keep their raw value.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public var rawValue: Int32

  public init(rawValue: Int32) {
    self.rawValue = rawValue
  }

  /// The frame did not decode as an envelope, or a field is missing or invalid.
  public static let invalidRequest = ErrorCode(rawValue: 1)
  /// The body is a kind the receiver does not know or does not take in this direction.
  public static let unknownMessage = ErrorCode(rawValue: 2)
  /// A known message carried a field the receiver does not know.
  public static let unknownField = ErrorCode(rawValue: 3)
  /// The major protocol versions differ; the connection closes after this error.
  public static let unsupportedVersion = ErrorCode(rawValue: 4)
  /// A message other than `Hello` came before the handshake.
  public static let handshakeRequired = ErrorCode(rawValue: 5)
  /// A frame's length is over the receiver's limit; the connection closes after this error.
  public static let frameTooLarge = ErrorCode(rawValue: 6)
  /// Another request with the same id is still in flight.
  public static let duplicateRequestID = ErrorCode(rawValue: 7)
  /// A `Cancel` abandoned the request.
  public static let cancelled = ErrorCode(rawValue: 8)
  /// The request, or one plugin's part of it, ran out of time.
  public static let timeout = ErrorCode(rawValue: 9)
  /// A plugin crashed, exited or answered something invalid.
  public static let pluginFailed = ErrorCode(rawValue: 10)
  /// No enabled plugin has the role the request needs.
  public static let noPlugins = ErrorCode(rawValue: 11)
  /// The image is empty, does not decode, or is over a size limit.
  public static let badImage = ErrorCode(rawValue: 12)
  /// The receiver is shutting down and takes no new requests.
  public static let shuttingDown = ErrorCode(rawValue: 13)
  /// The receiver has too much queued work.
  public static let busy = ErrorCode(rawValue: 14)
  /// A named meter, reading or plugin does not exist.
  public static let notFound = ErrorCode(rawValue: 15)
  /// A bug on the receiver's side.
  public static let `internal` = ErrorCode(rawValue: 16)
  /// The database could not be read or written; nothing was changed.
  public static let storeFailed = ErrorCode(rawValue: 17)

  private static let names: [Int32: String] = [
    1: "invalid-request", 2: "unknown-message", 3: "unknown-field", 4: "unsupported-version",
    5: "handshake-required", 6: "frame-too-large", 7: "duplicate-request-id", 8: "cancelled",
    9: "timeout", 10: "plugin-failed", 11: "no-plugins", 12: "bad-image", 13: "shutting-down",
    14: "busy", 15: "not-found", 16: "internal", 17: "store-failed",
  ]

  /// A short stable name, e.g. `plugin-failed`.
  public var description: String { Self.names[rawValue] ?? "error-\(rawValue)" }
}

/// A failure reply, or the failed part of a reply (one plugin's answer).
///
/// It is also a Swift `Error`: a request that gets an error reply throws it.
public struct ErrorReply: Error, Hashable, Sendable, CustomStringConvertible {
  public var code: ErrorCode
  /// A sentence a person can act on.
  public var message: String
  /// The plugin the error comes from, or empty.
  public var plugin: String

  public init(_ code: ErrorCode, _ message: String, plugin: String = "") {
    self.code = code
    self.message = message
    self.plugin = plugin
  }

  public var description: String {
    plugin.isEmpty ? "\(code): \(message)" : "\(code) (plugin \(plugin)): \(message)"
  }
}
