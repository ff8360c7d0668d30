import ArgumentParser
import Foundation
import PhotometerClient
import PhotometerProtocol

struct ReadCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "read",
    abstract: "Read the value shown in each photo; every read plugin answers and they vote."
  )

  @OptionGroup var global: GlobalOptions

  @Argument(help: "Photos to read; - reads one from standard input.")
  var images: [String]

  @Option(help: "The region holding the digits, as X,Y,W,H in pixels (default: the whole image).")
  var roi: RegionArgument?

  @Option(help: "A registered meter whose settings apply.")
  var meter: String?

  @Option(
    help: ArgumentHelp(
      "What the photo shows when no meter is named (glucose, thermometer, ...): with no --roi, of the rows of "
        + "digits found the one in the kind's range is read."))
  var kind: MeterKindArgument?

  @Option(help: "The expected number of digits.")
  var digits: UInt32 = 0

  @Option(help: "The expected number of decimal places.")
  var decimals: UInt32 = 0

  @Option(
    name: .customLong("dial"),
    help: ArgumentHelp(
      "A pointer dial in the photo, as X,Y,W,H:FACTOR[:ccw] (see meter add); repeat for each, coarsest first. "
        + "A registered meter's own dials take precedence.",
      valueName: "dial"),
    transform: { text in try Dial(parsing: text) })
  var dials: [Dial] = []

  @Flag(help: "Store each value as an unconfirmed reading of --meter, or of the meter identified in the photo.")
  var save = false

  @Flag(
    help: ArgumentHelp(
      "Have the shadow engines read too and list their answers (a saved reading keeps them anyway; without "
        + "either the reply does not wait for them)."))
  var shadows = false

  @Option(
    help: "Write each crop that was read, as PNG, into this folder, created if missing (to check the value against)."
  )
  var crops: String?

  @Flag(help: "One JSON object per image, one per line, in input order.")
  var json = false

  func run() async throws {
    try await reportingFailures {
      if let crops { try createOutputFolder(crops) }
      let client = try await global.connect()
      let template = ReadRequest(
        image: Image(data: []), roi: roi?.rect, meter: meter ?? "", digits: digits, decimals: decimals, save: save,
        dials: dials, kind: kind?.kind, shadows: shadows)
      try await runBatch(images, json: json, client: client) { path in
        var request = template
        request.image = Image(data: try loadImage(path), name: path)
        let result = try await client.send(.read(request))
        if let crops, let crop = result.crop {
          let stem =
            path == standardInputPath
            ? "stdin" : URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
          try writeImage(crop.data, folder: crops, stem: stem + ".crop")
        }
        return result
      }
    }
  }
}

/// `X,Y,W,H` on the command line.
struct RegionArgument: ExpressibleByArgument {
  var rect: Rect

  init?(argument: String) {
    let parts = argument.split(separator: ",").compactMap { Int32($0.trimmingCharacters(in: .whitespaces)) }
    guard parts.count == 4, parts[0] >= 0, parts[1] >= 0, parts[2] > 0, parts[3] > 0 else {
      return nil
    }
    rect = Rect(x: parts[0], y: parts[1], width: parts[2], height: parts[3])
  }
}

extension ReadResult: ImageResult {
  static let header = ["IMAGE", "VALUE", "CONFIDENCE", "MS", "ENGINES", "FLAGS"]

  static func json(_ result: ReadResult?, ms: Double) -> [(String, JSONValue)] {
    var members: [(String, JSONValue)] = [
      ("value", .optional(result?.value)),
      ("confidence", .number((result?.confidence ?? 0).rounded(toPlaces: 4))),
      ("ms", .number(ms)),
      ("engines", .array((result?.engines ?? []).map(engine))),
      ("flags", .array((result?.flags ?? []).map { JSONValue.string($0.rawValue) })),
    ]
    guard let result else { return members }
    members += [
      ("summary", .string(result.summary)),
      ("meter", result.meter.isEmpty ? .null : .string(result.meter)),
      (
        "digits",
        .array(
          result.digits.map { digit in
            .object(
              [
                ("digit", .string(digit.text)), ("confidence", .number(digit.confidence.rounded(toPlaces: 4))),
                (
                  "alternatives",
                  .array(
                    digit.alternatives.map {
                      .object([
                        ("digit", .string($0.text)), ("confidence", .number($0.confidence.rounded(toPlaces: 4))),
                      ])
                    })
                ),
              ]
                + (digit.roll.map {
                  [("rolling_from", .string($0.from)), ("roll", .number($0.fraction.rounded(toPlaces: 2)))]
                } ?? []))
          })
      ),
    ]
    if !result.windows.isEmpty {
      // The rows of digits found in the photo, the one read first.
      members.append(
        (
          "windows",
          .array(
            result.windows.map { window in
              .object(
                [
                  ("box", .rect(window.box)), ("value", .string(window.value)),
                  ("confidence", .number(window.confidence.rounded(toPlaces: 4))),
                ] + (window.digits.map { [("digits", .rect($0))] } ?? []))
            })
        ))
    }
    if !result.dials.isEmpty {
      // Each pointer dial, coarsest first: its digit and where its pointer stands (4.7: past 4).
      members.append(
        (
          "dials",
          .array(
            result.dials.map { dial in
              .object([
                ("digit", .string(dial.text)),
                ("position", .number(dial.position)),
                ("confidence", .number(dial.confidence.rounded(toPlaces: 4))),
              ])
            })
        ))
    }
    if !result.unrepairedValue.isEmpty {
      members.append(("unrepaired_value", .string(result.unrepairedValue)))
    }
    if result.readingID > 0 {
      members.append(("reading_id", .number(Double(result.readingID))))
    }
    return members
  }

  private static func engine(_ answer: EngineAnswer) -> JSONValue {
    var members: [(String, JSONValue)] = [("engine", .string(answer.plugin))]
    switch answer.outcome {
    case .success(let reading):
      members += [("text", .string(reading.text)), ("confidence", .number(reading.confidence.rounded(toPlaces: 4)))]
    case .failure(let error):
      members += [("text", .null), ("confidence", .number(0)), ("error", .string("\(error.code): \(error.message)"))]
    }
    members += [
      ("ms", .number(answer.milliseconds.rounded(toPlaces: 2))), ("version", .string(answer.version)),
      ("voted", .bool(answer.voted)),
    ]
    return .object(members)
  }

  static func row(_ result: ReadResult?, ms: Double, failure: String?) -> [String] {
    let engines = (result?.engines ?? []).map { answer in
      switch answer.outcome {
      case .success(let reading): "\(answer.plugin)=\(reading.text)"
      case .failure(let error): "\(answer.plugin)!\(error.code)"
      }
    }
    return [
      result.map { $0.value.isEmpty ? "-" : $0.value } ?? "-", String(format: "%.2f", result?.confidence ?? 0),
      String(format: "%.1f", ms), failure ?? engines.joined(separator: " "),
      (result?.flags ?? []).map(\.rawValue).joined(separator: ","),
    ]
  }
}
