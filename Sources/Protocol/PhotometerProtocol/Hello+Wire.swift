import CPhotometerProtocol

/// The generated key-value entry structs of the schema's `map<string, string>` fields.
protocol StringMapEntry {
  var key: UnsafeMutablePointer<CChar>! { get set }
  var value: UnsafeMutablePointer<CChar>! { get set }
}

extension Photometer__V1__Hello__OptionsEntry: StringMapEntry {}
extension Photometer__V1__Hello__DetailsEntry: StringMapEntry {}
extension Photometer__V1__ReadRequest__OptionsEntry: StringMapEntry {}

extension Arena {
  /// The entries of a `map<string, string>` field, sorted by key so that encoding is repeatable.
  func map<Entry: StringMapEntry>(
    _ dictionary: [String: String],
    _ initialize: (UnsafeMutablePointer<Entry>) -> Void
  ) -> (count: Int, pointer: UnsafeMutablePointer<UnsafeMutablePointer<Entry>?>?) {
    array(dictionary.sorted { $0.key < $1.key }) { key, value in
      message(initialize) {
        $0.key = string(key)
        $0.value = string(value)
      }
    }
  }
}

func dictionary<Entry: StringMapEntry>(
  _ count: Int,
  _ entries: UnsafeMutablePointer<UnsafeMutablePointer<Entry>?>?
) throws(WireError) -> [String: String] {
  let pairs = try repeated(count, entries) { (entry: Entry) throws(WireError) in
    (String(protobuf: entry.key), String(protobuf: entry.value))
  }
  return Dictionary(pairs, uniquingKeysWith: { _, last in last })
}

extension Role {
  static func decode(_ count: Int, _ values: UnsafeMutablePointer<Photometer__V1__Role>?) -> [Role] {
    guard let values else {
      return []
    }
    // A role from a newer minor version is not one this peer can use: it is left out.
    return (0..<count).compactMap { Int32(exactly: values[$0].rawValue).flatMap(Role.init(rawValue:)) }
  }

  static func encode(_ roles: [Role], in arena: Arena) -> (
    count: Int, pointer: UnsafeMutablePointer<Photometer__V1__Role>?
  ) {
    arena.values(roles.map { Photometer__V1__Role(rawValue: UInt32($0.rawValue)) })
  }
}

extension Hello {
  init(_ hello: Photometer__V1__Hello) throws(WireError) {
    self.init(
      version: ProtocolVersion(major: hello.protocol_major, minor: hello.protocol_minor),
      name: String(protobuf: hello.name),
      softwareVersion: String(protobuf: hello.version),
      roles: Role.decode(hello.n_roles, hello.roles),
      options: try dictionary(hello.n_options, hello.options),
      acceptedOptions: try repeated(hello.n_accepted_options, hello.accepted_options) { spec throws(WireError) in
        OptionSpec(
          name: String(protobuf: spec.name),
          description: String(protobuf: spec.description),
          defaultValue: String(protobuf: spec.default_value)
        )
      },
      details: try dictionary(hello.n_details, hello.details)
    )
  }

  func encode(in arena: Arena) -> UnsafeMutablePointer<Photometer__V1__Hello> {
    arena.message(photometer__v1__hello__init) {
      $0.protocol_major = version.major
      $0.protocol_minor = version.minor
      $0.name = arena.string(name)
      $0.version = arena.string(softwareVersion)
      ($0.n_roles, $0.roles) = Role.encode(roles, in: arena)
      ($0.n_options, $0.options) = arena.map(options, photometer__v1__hello__options_entry__init)
      ($0.n_accepted_options, $0.accepted_options) = arena.array(acceptedOptions) { spec in
        arena.message(photometer__v1__option_spec__init) {
          $0.name = arena.string(spec.name)
          $0.description = arena.string(spec.description)
          $0.default_value = arena.string(spec.defaultValue)
        }
      }
      ($0.n_details, $0.details) = arena.map(details, photometer__v1__hello__details_entry__init)
    }
  }
}

extension ErrorReply {
  init(_ error: Photometer__V1__Error) {
    self.init(
      ErrorCode(rawValue: Int32(bitPattern: error.code.rawValue)),
      String(protobuf: error.message),
      plugin: String(protobuf: error.plugin)
    )
  }

  func encode(in arena: Arena) -> UnsafeMutablePointer<Photometer__V1__Error> {
    arena.message(photometer__v1__error__init) {
      $0.code = Photometer__V1__ErrorCode(rawValue: UInt32(bitPattern: code.rawValue))
      $0.message = arena.string(message)
      $0.plugin = arena.string(plugin)
    }
  }
}
