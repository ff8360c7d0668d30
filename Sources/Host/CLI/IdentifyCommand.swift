import ArgumentParser
import Foundation
import PhotometerClient
import PhotometerProtocol

struct IdentifyCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "identify",
    abstract: "Say which meter each photo shows; every identify plugin answers and they vote.",
    discussion: "It chooses among the registered meters, or among the --reference NAME=PHOTO given instead."
  )

  @OptionGroup var global: GlobalOptions

  @Argument(help: "Photos to identify; - reads one from standard input.")
  var images: [String]

  @Option(
    name: .customLong("reference"), help: "A meter and its reference photo, as NAME=PHOTO; repeat for each meter.")
  var references: [ReferenceArgument] = []

  @Flag(help: "One JSON object per image, one per line, in input order.")
  var json = false

  func run() async throws {
    try await reportingFailures {
      let references = try references.map { (argument) throws(CommandFailure) in
        let data = try loadImage(argument.path)
        return Reference(meter: argument.meter, image: Image(data: data, name: argument.path), sha256: "")
      }
      let client = try await global.connect()
      try await runBatch(images, json: json, client: client) { path in
        let request = IdentifyRequest(image: Image(data: try loadImage(path), name: path), references: references)
        return try await client.send(.identify(request))
      }
    }
  }
}

/// `NAME=PHOTO` on the command line.
struct ReferenceArgument: ExpressibleByArgument {
  var meter: String
  var path: String

  init?(argument: String) {
    guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
      return nil
    }
    meter = String(argument[..<equals])
    path = String(argument[argument.index(after: equals)...])
    guard !path.isEmpty else {
      return nil
    }
  }
}

extension IdentifyResult: ImageResult {
  static let header = ["IMAGE", "METER", "CONFIDENCE", "MS", "SUMMARY"]

  static func json(_ result: IdentifyResult?, ms: Double) -> [(String, JSONValue)] {
    var members: [(String, JSONValue)] = [
      ("meter", .optional(result?.meter)),
      ("confidence", .number((result?.confidence ?? 0).rounded(toPlaces: 4))),
      ("ms", .number(ms)),
      ("plugins", .array((result?.plugins ?? []).map(plugin))),
      (
        "candidates",
        .array(
          (result?.candidates ?? []).map {
            .object([("meter", .string($0.meter)), ("confidence", .number($0.confidence.rounded(toPlaces: 4)))])
          })
      ),
    ]
    guard let result else { return members }
    members.append(("summary", .string(result.summary)))
    if !result.colour.isEmpty {
      members.append(("colour", .string(result.colour)))
    }
    if !result.outline.isEmpty {
      members.append(
        ("outline", .array(result.outline.map { .array([.number(Double($0.x)), .number(Double($0.y))]) })))
    }
    return members
  }

  private static func plugin(_ answer: PluginIdentification) -> JSONValue {
    var members: [(String, JSONValue)] = [("plugin", .string(answer.plugin))]
    switch answer.outcome {
    case .success(let candidates):
      members += [("meter", .optional(candidates.first?.meter)), ("score", .number(candidates.first?.score ?? 0))]
    case .failure(let error):
      members += [("meter", .null), ("score", .number(0)), ("error", .string("\(error.code): \(error.message)"))]
    }
    members += [("ms", .number(answer.milliseconds.rounded(toPlaces: 2))), ("voted", .bool(answer.voted))]
    return .object(members)
  }

  static func row(_ result: IdentifyResult?, ms: Double, failure: String?) -> [String] {
    [
      result.map { $0.meter.isEmpty ? "-" : $0.meter } ?? "-", String(format: "%.2f", result?.confidence ?? 0),
      String(format: "%.1f", ms), failure ?? result?.summary ?? "",
    ]
  }
}
