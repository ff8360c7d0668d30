import PhotometerProtocol

/// The outcome of one request to one plugin: its answer (a ``PluginRequest``'s response, or the
/// raw reply inside the supervisor) or why there is none.
public struct PluginCall<Response: Sendable>: Sendable {
  public var outcome: Result<Response, ErrorReply>
  /// The plugin's version from its `Hello`, or empty if it never started.
  public var version: String
  public var milliseconds: Double

  /// The same call with its answer made `transform`'s, or its failure.
  func map<Other>(_ transform: (Response) -> Result<Other, ErrorReply>) -> PluginCall<Other> {
    PluginCall<Other>(outcome: outcome.flatMap(transform), version: version, milliseconds: milliseconds)
  }
}

extension ErrorReply {
  /// The error a failed request to `plugin` is reported as.
  static func from(_ error: any Error, plugin: String) -> ErrorReply {
    var reply: ErrorReply
    switch error {
    case let error as ErrorReply:
      reply = error
    case is CancellationError:
      reply = ErrorReply(.cancelled, "the request was cancelled")
    case let error as RequestChannel.Closed:
      reply = ErrorReply(.pluginFailed, "the plugin stopped: \(error.reason)")
    case let error as RequestChannel.TimedOut:
      reply = ErrorReply(.timeout, error.description)
    case let error as ChannelError:
      reply = ErrorReply(.pluginFailed, "cannot send to the plugin: \(error)")
    default:
      reply = ErrorReply(.internal, "\(error)")
    }
    reply.plugin = plugin
    return reply
  }
}
