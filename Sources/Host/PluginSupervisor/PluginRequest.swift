import PhotometerProtocol

/// A request the host sends a plugin, with the kind of answer it gets: `pool.call(.read(request))`
/// answers an ``EngineReading``. The plugin conversation's counterpart of the client's
/// `HostRequest`: each request is paired with its reply here, once.
public struct PluginRequest<Response: Sendable>: Sendable {
  /// The request as it goes on the wire.
  public let message: Message
  private let answer: @Sendable (Message) -> Response?

  init(_ message: Message, answer: @escaping @Sendable (Message) -> Response?) {
    self.message = message
    self.answer = answer
  }

  /// The answer the reply carries, or `nil` when the reply is of another kind.
  public func answer(in reply: Message) -> Response? {
    answer(reply)
  }
}

extension PluginRequest where Response == EngineReading {
  /// A read (the `read` and `dials` roles).
  public static func read(_ request: ReadRequest) -> Self {
    Self(.read(request)) { if case .engineReading(let reading) = $0 { reading } else { nil } }
  }
}

extension PluginRequest where Response == PluginCandidates {
  /// An identification (the `identify` role).
  public static func identify(_ request: IdentifyRequest) -> Self {
    Self(.identify(request)) { if case .pluginCandidates(let answer) = $0 { answer } else { nil } }
  }
}

extension PluginRequest where Response == [UInt8] {
  /// A ping: the plugin's `Pong` carries the payload back.
  public static func ping(payload: [UInt8] = []) -> Self {
    Self(.ping(payload: payload)) { if case .pong(let payload) = $0 { payload } else { nil } }
  }
}
