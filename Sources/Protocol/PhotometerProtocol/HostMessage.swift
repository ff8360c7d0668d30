/// What the host may send a plugin, as the plugin's receiving edge takes it (see
/// ``ClientMessage``).
public enum HostMessage: Hashable, Sendable {
  case hello(Hello)
  case ping(payload: [UInt8])
  case cancel(requestID: UInt64)
  case shutdown
  case read(ReadRequest)
  case identify(IdentifyRequest)

  /// The host's message, or `nil` for a reply or a kind only a client sends.
  public init?(_ message: Message) {
    switch message {
    case .hello(let hello): self = .hello(hello)
    case .ping(let payload): self = .ping(payload: payload)
    case .cancel(let id): self = .cancel(requestID: id)
    case .shutdown: self = .shutdown
    case .read(let request): self = .read(request)
    case .identify(let request): self = .identify(request)
    default: return nil
    }
  }
}
