import ArgumentParser
import Foundation
import PhotometerClient
import PhotometerProtocol

struct ReadingCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "reading",
    abstract: "Store, confirm, correct and delete readings.",
    subcommands: [Add.self, Show.self, Confirm.self, Delete.self]
  )

  struct Add: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Store a reading typed by hand.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The meter's name.") var meter: String
    @Argument(help: "The value, e.g. 01234.567 (blood pressure: 120/80 or 120/80/70).") var value: String
    @Option(help: "When it was taken (default: the photo's EXIF time, else now): \(TimeArgument.formats).")
    var at: TimeArgument?
    @Option(help: "The unit of the value (default: the meter's).") var unit: String?
    @Option(help: "The photo it was read from, for its EXIF time.") var photo: String?
    @Flag(
      help: """
        Store the value even when a counting meter could not show it (below the reading before it, \
        above the one after it, or faster than its maximum rate).
        """)
    var force = false
    @Flag(help: "Print the reading as JSON.") var json = false

    func run() async throws {
      try await reportingFailures {
        let image = try loadImages(photo.map { [$0] } ?? []).first
        let request = AddReadingRequest(
          meter: meter, value: value, unit: unit ?? "", takenAt: at?.milliseconds, photo: image, source: .manual,
          force: force)
        let reading = try await global.request(.addReading(request))
        json ? print(reading.json.rendered) : print("Stored reading \(reading.id): \(reading.line)")
      }
    }
  }

  struct Confirm: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Mark a reading as checked by you, or correct it with --value.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The reading's id.") var id: Int64
    @Option(help: "The right value, when the stored one is wrong.") var value: String?

    func run() async throws {
      try await reportingFailures {
        let reading = try await global.request(.confirmReading(id: id, value: value ?? ""))
        print("Confirmed reading \(reading.id): \(reading.line)")
      }
    }
  }

  struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Show a stored reading: its value, source, confidence and each engine's answer.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The reading's id.") var id: Int64
    @Option(help: "Write the window it was read from (PNG or JPEG, as stored) to this file.") var crop: String?
    @Flag(help: "Print the reading as JSON.") var json = false

    func run() async throws {
      try await reportingFailures {
        let reading = try await global.request(.getReading(id: id, withCrop: crop != nil))
        if let crop {
          guard !reading.crop.isEmpty else {
            throw CommandFailure.badInput("reading \(id) has no stored crop (it was typed, not read from a photo)")
          }
          try writeFile(reading.crop, to: crop)
        }
        if json {
          print(reading.json.rendered)
          return
        }
        let confidence = reading.confidence.map { ", confidence \($0.percentText)" } ?? ""
        print("Reading \(reading.id): \(reading.line) (\(reading.source.rawValue)\(confidence))")
        for engine in reading.engines {
          let answer =
            engine.value.map { "\($0.text.isEmpty ? "nothing" : $0.text) (\(String(format: "%.2f", $0.confidence)))" }
            ?? "no answer"
          print("  \(engine.plugin) \(engine.version): \(answer), \(String(format: "%.1f", engine.milliseconds)) ms")
        }
      }
    }
  }

  struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Delete a reading.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The reading's id.") var id: Int64

    func run() async throws {
      try await reportingFailures {
        _ = try await global.request(.deleteReading(id: id))
        print("Deleted reading \(id)")
      }
    }
  }
}

struct ReadingsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "readings", abstract: "List a meter's readings, oldest first.")

  @OptionGroup var global: GlobalOptions
  @OptionGroup var span: MeterSpan
  @Flag(help: "One JSON object per reading, one per line.") var json = false
  @Flag(help: "CSV with a header line.") var csv = false
  @Option(help: "Only the latest N readings (still oldest first).") var last: Int?
  @Option(
    help: "Write each listed reading's stored crop into this folder (created if missing) as ID.png or ID.jpg.")
  var crops: String?

  func validate() throws {
    guard !(json && csv) else { throw ValidationError("--json and --csv exclude each other") }
    if let last, last < 1 { throw ValidationError("--last must be at least 1") }
  }

  func run() async throws {
    try await reportingFailures {
      if let crops { try createOutputFolder(crops) }
      let window = span.request()
      let request = ListReadingsRequest(
        meter: window.meter, from: window.from, to: window.to, unit: window.unit, withCrops: crops != nil, limit: last)
      let readings = try await global.request(.listReadings(request))
      if let crops {
        for reading in readings where !reading.crop.isEmpty {
          try writeImage(reading.crop, folder: crops, stem: "\(reading.id)")
        }
      }
      if json {
        readings.forEach { print($0.json.rendered) }
      } else if csv {
        print("id,meter,taken_at,value,unit,as_read,read_unit,source,confidence,verified")
        for reading in readings {
          let fields = [
            "\(reading.id)", reading.meter, isoTime(reading.takenAt), reading.shown.value, reading.shown.unit,
            reading.value, reading.unit, reading.source.rawValue, reading.confidence.map { "\($0)" } ?? "",
            "\(reading.verified)",
          ]
          print(CSV.line(fields), terminator: "")
        }
      } else {
        printTable(
          header: ["ID", "TAKEN", "VALUE", "UNIT", "SOURCE", "CONFIDENCE", "VERIFIED"],
          rows: readings.map {
            [
              "\($0.id)", localTime($0.takenAt), $0.shown.value, $0.shown.unit, $0.source.rawValue,
              $0.confidence.map { String(format: "%.2f", $0) } ?? "-", $0.verified ? "yes" : "no",
            ]
          })
      }
    }
  }
}

extension StoredReading {
  /// One line: meter, value, unit, time.
  var line: String {
    "\(meter) \(shown.value) \(shown.unit) at \(localTime(takenAt))\(verified ? ", verified" : "")"
      + (forced ? ", forced past the counting checks" : "")
  }
}
