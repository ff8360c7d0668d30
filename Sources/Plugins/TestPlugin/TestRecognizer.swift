import PhotometerProtocol
import PluginKit

#if canImport(Glibc)
  import Glibc
#endif

/// A recognizer whose answers and misbehaviour the configuration or each request chooses.
///
/// Reading answers with the `text` option; identifying ranks first the references whose image
/// bytes equal the photo's. The `behaviour` option makes it misbehave, so tests can prove how the
/// host copes. Request options override the options from the host's `Hello`.
struct TestRecognizer: Recognizer {
  static let acceptedOptions = [
    OptionSpec(name: "roles", description: "comma-separated roles to offer", defaultValue: "identify,read"),
    OptionSpec(name: "text", description: "what reading answers"),
    OptionSpec(name: "confidence", description: "the confidence of each answer", defaultValue: "0.9"),
    OptionSpec(name: "delay_ms", description: "wait this long before each answer", defaultValue: "0"),
    OptionSpec(
      name: "behaviour", description: "answer, fail, hang, crash (SIGABRT) or exit", defaultValue: "answer"),
    OptionSpec(name: "exit_code", description: "the status for behaviour=exit", defaultValue: "3"),
    OptionSpec(name: "stderr_lines", description: "lines written to stderr before each answer", defaultValue: "0"),
  ]

  private(set) var roles: [Role] = [.identify, .read]
  private var options: [String: String] = [:]

  mutating func handshake(_ host: Hello) throws(ErrorReply) -> Hello {
    options = host.options
    if let names = options["roles"] {
      roles = try names.split(separator: ",").map { (name) throws(ErrorReply) -> Role in
        guard let role = Role.allCases.first(where: { $0.description == name }) else {
          throw ErrorReply(.invalidRequest, "unknown role '\(name)' in option roles")
        }
        return role
      }
    }
    return Hello(
      name: "photometer-testplugin",
      softwareVersion: "1.0.0",
      acceptedOptions: Self.acceptedOptions,
      details: ["engine": "test"]
    )
  }

  mutating func read(_ request: ReadRequest) throws(ErrorReply) -> EngineReading {
    let settings = options.merging(request.options) { $1 }
    try behave(settings)
    guard let text = settings["text"] else {
      throw ErrorReply(.invalidRequest, "the test plugin reads only what its 'text' option says, and none is set")
    }
    let confidence = Double(settings["confidence"] ?? "") ?? 0.9
    let symbols = text.map { Symbol(text: String($0), confidence: confidence) }
    return EngineReading(text: text, confidence: confidence, symbols: symbols)
  }

  mutating func identify(_ request: IdentifyRequest) throws(ErrorReply) -> [Candidate] {
    try behave(options)
    return request.references
      .filter { $0.image.data == request.image.data }
      .map { Candidate(meter: $0.meter, score: 1, confidence: 1) }
  }

  private func behave(_ settings: [String: String]) throws(ErrorReply) {
    for line in 0..<(Int(settings["stderr_lines"] ?? "") ?? 0) {
      // print goes to standard error: PluginServer points descriptor 1 there.
      print("test plugin diagnostic line \(line)")
    }
    if let delay = Int(settings["delay_ms"] ?? ""), delay > 0 {
      usleep(useconds_t(delay) * 1000)
    }
    switch settings["behaviour"] ?? "answer" {
    case "fail":
      throw ErrorReply(.internal, "failing as the behaviour option asks")
    case "hang":
      while true { pause() }
    case "crash":
      abort()
    case "exit":
      exit(Int32(settings["exit_code"] ?? "") ?? 3)
    default:
      return
    }
  }
}
