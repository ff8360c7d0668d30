import PhotometerImages
import PhotometerProtocol
import PluginKit

#if canImport(Glibc)
  import Glibc
#endif

/// A recognizer whose answers and misbehaviour the configuration or each request chooses.
///
/// Reading answers with the `text` option (`{pid}` in it is the process's, `{height}` the height
/// of the image it was sent, from its header, `{digits}` the digit count the request carries,
/// `{survey}` 1 for a survey read, else 0, `{found}` 1 for a row the host found in a whole photo,
/// else 0; with `refinable`, survey answers say a full read may differ);
/// with `learns`, it asks for the crop of each of a meter's examples once, as an engine that
/// learns from confirmed readings does. Identifying ranks first the references whose image bytes
/// equal the photo's. The `behaviour` option makes it misbehave, so tests can prove how the host
/// copes. Request options override the options from the host's `Hello`.
struct TestRecognizer: Recognizer {
  static let acceptedOptions = [
    OptionSpec(name: "roles", description: "comma-separated roles to offer", defaultValue: "identify,read"),
    OptionSpec(name: "text", description: "what reading answers"),
    OptionSpec(name: "confidence", description: "the confidence of each answer", defaultValue: "0.9"),
    OptionSpec(
      name: "learns", description: "yes: ask once for the crop of each example a read brings without it",
      defaultValue: "no"),
    OptionSpec(
      name: "refinable", description: "yes: survey reads answer that a full read may differ", defaultValue: "no"),
    OptionSpec(name: "delay_ms", description: "wait this long before each answer", defaultValue: "0"),
    OptionSpec(
      name: "started_file",
      description: "a file to which a line is appended as each request starts (tests wait for it)"),
    OptionSpec(
      name: "behaviour",
      description: "answer, fail, hang, crash (SIGABRT), signal, exit, garbage (an absurd frame length), "
        + "bad-frame (a frame that is not a message), flood (stderr) or leak (memory)",
      defaultValue: "answer"),
    OptionSpec(
      name: "sure_among",
      description: "identify: past this many references, propose the matching meter (confidence 0.3) "
        + "among every other (0.05) as a matcher that cannot check them all; none: always sure"),
    OptionSpec(name: "exit_code", description: "the status for behaviour=exit", defaultValue: "3"),
    OptionSpec(name: "signal", description: "the signal for behaviour=signal", defaultValue: "9"),
    OptionSpec(name: "stderr_lines", description: "lines written to stderr before each answer", defaultValue: "0"),
    OptionSpec(name: "flood_mb", description: "MiB written to stderr for behaviour=flood", defaultValue: "8"),
    OptionSpec(name: "leak_mb", description: "MiB kept for good per request for behaviour=leak", defaultValue: "16"),
  ]

  private(set) var roles: [Role] = [.identify, .read]
  /// Reference images by SHA-256, as the host sends them on demand.
  private var seenReferences: [String: [UInt8]] = [:]
  /// With `learns`: the examples whose crop came, by meter.
  private var seenExamples: [String: Set<String>] = [:]
  private var options: [String: String] = [:]
  /// What behaviour=leak keeps.
  private var leaked: [[UInt8]] = []

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
    guard let template = settings["text"] else {
      throw ErrorReply(.invalidRequest, "the test plugin reads only what its 'text' option says, and none is set")
    }
    // "{pid}" lets a test see which process of a pool answered, "{height}" what it was sent,
    // "{digits}" whether it was told a digit count, "{survey}" whether it read to compare rows,
    // "{found}" whether the host found the row it was sent.
    let text = template.replacing("{pid}", with: "\(getpid())")
      .replacing("{height}", with: (try? ImageInfo.inspect(request.image.data)).map { "\($0.height)" } ?? "-")
      .replacing("{digits}", with: "\(request.digits)")
      .replacing("{survey}", with: request.survey ? "1" : "0")
      .replacing("{found}", with: request.foundRow ? "1" : "0")
    let confidence = Double(settings["confidence"] ?? "") ?? 0.9
    let symbols = text.map { Symbol(text: String($0), confidence: confidence) }
    var reading = EngineReading(
      text: text, confidence: confidence, symbols: symbols, refinable: request.survey && settings["refinable"] == "yes")
    if settings["learns"] == "yes" {
      reading.missingExamples = learn(from: request)
    }
    return reading
  }

  /// Keeps the keys of the request's examples that came with their crop; returns those that came
  /// without and were never seen with it.
  private mutating func learn(from request: ReadRequest) -> [String] {
    var seen = seenExamples[request.meter] ?? []
    var missing: [String] = []
    for example in request.examples where !seen.contains(example.key) {
      if example.crop.isEmpty {
        missing.append(example.key)
      } else {
        seen.insert(example.key)
      }
    }
    seenExamples[request.meter] = seen
    return missing
  }

  private func writeToFrames(_ bytes: [UInt8]) {
    _ = bytes.withUnsafeBytes { write(PluginServer.frameOutputDescriptor, $0.baseAddress, $0.count) }
  }

  mutating func identify(_ request: IdentifyRequest) throws(ErrorReply) -> PluginCandidates {
    try behave(options)
    for reference in request.references where !reference.image.data.isEmpty {
      seenReferences[reference.sha256] = reference.image.data
    }
    let missing = request.references.map(\.sha256).filter { seenReferences[$0] == nil }
    guard missing.isEmpty else {
      return PluginCandidates([], missingReferences: missing)
    }
    let matching = request.references.filter { seenReferences[$0.sha256] == request.image.data }
    if let sureAmong = Int(options["sure_among"] ?? ""), request.references.count > sureAmong {
      let others = request.references.filter { seenReferences[$0.sha256] != request.image.data }
      return PluginCandidates(
        matching.map { Candidate(meter: $0.meter, score: 0.3, confidence: 0.3) }
          + others.map { Candidate(meter: $0.meter, score: 0.05, confidence: 0.05) })
    }
    return PluginCandidates(matching.map { Candidate(meter: $0.meter, score: 1, confidence: 1) })
  }

  private mutating func behave(_ settings: [String: String]) throws(ErrorReply) {
    if let path = settings["started_file"] {
      let file = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
      guard file >= 0 else {
        throw ErrorReply(.internal, "cannot append to started_file '\(path)' (errno \(errno)); give a writable path")
      }
      _ = write(file, "started\n", 8)
      close(file)
    }
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
    case "bad-image":
      throw ErrorReply(.badImage, "the photo does not decode (as the behaviour option asks)")
    case "hang":
      while true { pause() }
    case "crash":
      abort()
    case "exit":
      exit(Int32(settings["exit_code"] ?? "") ?? 3)
    case "signal":
      kill(getpid(), Int32(settings["signal"] ?? "") ?? SIGKILL)
      while true { pause() }
    case "garbage":
      writeToFrames([UInt8](repeating: 0xFF, count: 12))
    case "bad-frame":
      writeToFrames([4, 0xFF, 0xFF, 0xFF, 0xFF])
    case "flood":
      let line = [UInt8](repeating: UInt8(ascii: "x"), count: 1023) + [UInt8(ascii: "\n")]
      for _ in 0..<((Int(settings["flood_mb"] ?? "") ?? 8) * 1024) {
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
      }
    case "leak":
      let bytes = (Int(settings["leak_mb"] ?? "") ?? 16) << 20
      leaked.append([UInt8](repeating: 1, count: bytes))
    default:
      return
    }
  }
}
