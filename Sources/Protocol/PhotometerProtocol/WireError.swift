/// Why a frame's bytes are not a message this peer accepts.
public enum WireError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The bytes are not a valid protobuf `Envelope`.
  case undecodable
  /// The envelope's body is of a kind this schema does not have, or it has no body at all.
  case unknownMessage(fieldNumber: UInt32?)
  /// A known message holds a field this schema does not have.
  case unknownField(message: String, fieldNumber: UInt32)
  /// A value is out of its allowed set, e.g. an answer with neither a reading nor an error.
  case invalid(String)

  public var description: String {
    switch self {
    case .undecodable:
      "the frame is not a valid protobuf Envelope"
    case .unknownMessage(let number?):
      "the envelope carries a message of unknown kind (field \(number)); this peer speaks protocol \(ProtocolVersion.current)"
    case .unknownMessage(nil):
      "the envelope carries no message"
    case .unknownField(let message, let number):
      "\(message) has unknown field \(number); this peer speaks protocol \(ProtocolVersion.current)"
    case .invalid(let reason):
      reason
    }
  }

  /// The error code a reply to such a frame carries.
  public var code: ErrorCode {
    switch self {
    case .undecodable, .invalid: .invalidRequest
    case .unknownMessage: .unknownMessage
    case .unknownField: .unknownField
    }
  }
}

/// A frame that could not be taken as a message, with the request id it carried, if any.
public struct UndecodableFrame: Error, Hashable, Sendable {
  /// The envelope's request id when it could be read, else 0.
  public var requestID: UInt64
  public var reason: WireError

  public init(requestID: UInt64, reason: WireError) {
    self.requestID = requestID
    self.reason = reason
  }
}

extension Collection where Element == UInt8 {
  /// The bytes in lower-case hex, two digits each, with `separator` between bytes.
  public func hex(separator: String = "") -> String {
    map { byte in
      let digits = String(byte, radix: 16)
      return digits.count == 1 ? "0" + digits : digits
    }.joined(separator: separator)
  }

  /// The bytes in hex separated by spaces: for quoting garbage in logs.
  public var hexDump: String {
    hex(separator: " ")
  }
}
