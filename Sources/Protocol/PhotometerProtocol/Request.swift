/// A request paired with the kind of answer it gets, in one of the two conversations the wire's
/// ``Message`` carries: `Request<ClientConversation, [Meter]>` is a client asking the host for
/// its meters, `Request<PluginConversation, EngineReading>` the host asking a plugin to read.
/// Each conversation's requests are declared once, beside the code that sends them
/// (`HostRequest` in PhotometerClient, `PluginRequest` in PluginSupervisor), and one cannot be
/// sent in the other.
public struct Request<Conversation, Response>: Sendable {
  /// The request as it goes on the wire.
  public let message: Message
  private let answer: @Sendable (Message) -> Response?

  /// - Parameter answer: the reply's answer, or `nil` when the reply is of another kind.
  public init(_ message: Message, answer: @escaping @Sendable (Message) -> Response?) {
    self.message = message
    self.answer = answer
  }

  /// The answer the reply carries, or `nil` when the reply is of another kind.
  public func answer(in reply: Message) -> Response? {
    answer(reply)
  }
}

/// A client's conversation with the host.
public enum ClientConversation {}

/// The host's conversation with a plugin.
public enum PluginConversation {}
