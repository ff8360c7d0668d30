/// A protocol version as peers exchange it in ``Hello``.
///
/// Peers with different major versions cannot talk: the side that receives the first `Hello`
/// answers with ``ErrorCode/unsupportedVersion`` and closes. Minor versions only add messages and
/// fields, so any two minor versions of one major version talk.
public struct ProtocolVersion: Hashable, Sendable, CustomStringConvertible {
  public var major: UInt32
  public var minor: UInt32

  public init(major: UInt32, minor: UInt32) {
    self.major = major
    self.minor = minor
  }

  /// The version this build speaks.
  public static let current = ProtocolVersion(major: 1, minor: 6)
  /// The first version whose identify plugins keep reference sets (``IdentifyRequest/referenceSet``).
  public static let referenceSets = ProtocolVersion(major: 1, minor: 2)
  /// The first version whose read plugins are sent crops uncompressed (BMP): a PNG crop took a
  /// plugin about a millisecond to decode and the host longer to encode, every crop of every read.
  public static let uncompressedCrops = ProtocolVersion(major: 1, minor: 4)
  /// The first version whose clients ask for the shadow engines' answers to a read that saves
  /// nothing (``ReadRequest/shadows``); an older client gets them with every read, as it did.
  public static let askedShadows = ProtocolVersion(major: 1, minor: 6)

  public var description: String { "\(major).\(minor)" }

  /// Whether a peer speaking `other` can talk with this version.
  public func isCompatible(with other: ProtocolVersion) -> Bool {
    major == other.major
  }

  /// Whether this version has everything `other` added: the same major, the same minor or later.
  public func includes(_ other: ProtocolVersion) -> Bool {
    major == other.major && minor >= other.minor
  }
}

extension Hello {
  /// The error with which a side refuses a peer's `Hello`, or `nil` if the two can talk.
  public func refusal(ofPeer peer: Hello) -> ErrorReply? {
    guard !version.isCompatible(with: peer.version) else {
      return nil
    }
    return ErrorReply(
      .unsupportedVersion,
      "\(peer.name.isEmpty ? "the peer" : peer.name) speaks protocol \(peer.version), "
        + "\(name) speaks protocol \(version): the major versions must match"
    )
  }
}
