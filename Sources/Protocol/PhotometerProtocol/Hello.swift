/// What a recognizer can do.
public enum Role: Int32, Hashable, Sendable, CaseIterable, Codable, CustomStringConvertible {
  /// Says which registered meter a photo shows.
  case identify = 1
  /// Reads the value shown on a meter's display.
  case read = 2
  /// Reads pointer dials: where each of a read request's ``ReadRequest/dials`` points.
  case dials = 3

  public var description: String {
    switch self {
    case .identify: "identify"
    case .read: "read"
    case .dials: "dials"
    }
  }
}

/// An option a peer accepts, announced in its ``Hello``.
public struct OptionSpec: Hashable, Sendable {
  public var name: String
  public var description: String
  public var defaultValue: String

  public init(name: String, description: String, defaultValue: String = "") {
    self.name = name
    self.description = description
    self.defaultValue = defaultValue
  }
}

/// The first message in each direction of a conversation.
///
/// The side that opens the conversation (a client, or the host towards a plugin) sends it first;
/// the other side answers with its own `Hello` under the same request id.
public struct Hello: Hashable, Sendable {
  public var version: ProtocolVersion
  /// The program's name, e.g. `photometer-host` or a plugin's configured name.
  public var name: String
  /// The program's own version.
  public var softwareVersion: String
  /// The roles the sender offers.
  public var roles: [Role]
  /// Settings for the receiver; the host passes each plugin its configured options.
  public var options: [String: String]
  /// The options the sender accepts.
  public var acceptedOptions: [OptionSpec]
  /// Facts about the sender: engine version, language data, model hash.
  public var details: [String: String]

  public init(
    version: ProtocolVersion = .current,
    name: String,
    softwareVersion: String,
    roles: [Role] = [],
    options: [String: String] = [:],
    acceptedOptions: [OptionSpec] = [],
    details: [String: String] = [:]
  ) {
    self.version = version
    self.name = name
    self.softwareVersion = softwareVersion
    self.roles = roles
    self.options = options
    self.acceptedOptions = acceptedOptions
    self.details = details
  }
}
