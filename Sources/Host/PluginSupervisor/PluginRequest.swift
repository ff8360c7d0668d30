import PhotometerProtocol

/// A request the host sends a plugin, with the kind of answer it gets: `pool.call(.read(request))`
/// answers an ``EngineReading``. Each request is paired with its reply here, once.
public typealias PluginRequest<Response> = Request<PluginConversation, Response>

extension Request where Conversation == PluginConversation, Response == EngineReading {
  /// A read (the `read` and `dials` roles).
  public static func read(_ request: ReadRequest) -> Self {
    Self(.read(request)) { if case .engineReading(let reading) = $0 { reading } else { nil } }
  }
}

extension Request where Conversation == PluginConversation, Response == PluginCandidates {
  /// An identification (the `identify` role).
  public static func identify(_ request: IdentifyRequest) -> Self {
    Self(.identify(request)) { if case .pluginCandidates(let answer) = $0 { answer } else { nil } }
  }
}

extension Request where Conversation == PluginConversation, Response == [UInt8] {
  /// A ping: the plugin's `Pong` carries the payload back.
  public static func ping(payload: [UInt8] = []) -> Self {
    Self(.ping(payload: payload)) { if case .pong(let payload) = $0 { payload } else { nil } }
  }
}
