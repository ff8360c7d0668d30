import PhotometerProtocol

/// What a plugin implements; ``PluginServer`` does the rest of the protocol.
///
/// Requests come one at a time, in order, on one thread: a recognizer needs no locking. The host
/// runs several instances of a plugin when it wants parallel work.
public protocol Recognizer: SendableMetatype {
  /// The roles this recognizer offers; the server refuses requests for other roles.
  var roles: [Role] { get }

  /// Takes the host's `Hello` (with the configured options) and answers with this plugin's own.
  ///
  /// Throw an ``ErrorReply`` to refuse the configuration; the plugin then exits.
  mutating func handshake(_ host: Hello) throws(ErrorReply) -> Hello

  /// Reads the value in a photo.
  mutating func read(_ request: ReadRequest) throws(ErrorReply) -> EngineReading

  /// Ranks the given references by how likely the photo shows each, best first.
  ///
  /// References may come without their image (the host sends images only on demand): list those
  /// the recognizer has not seen in ``PluginCandidates/missingReferences`` and the host asks again
  /// with them attached.
  mutating func identify(_ request: IdentifyRequest) throws(ErrorReply) -> PluginCandidates
}

extension Recognizer {
  public mutating func read(_ request: ReadRequest) throws(ErrorReply) -> EngineReading {
    throw ErrorReply(.unknownMessage, "this plugin does not read values")
  }

  public mutating func identify(_ request: IdentifyRequest) throws(ErrorReply) -> PluginCandidates {
    throw ErrorReply(.unknownMessage, "this plugin does not identify meters")
  }
}
