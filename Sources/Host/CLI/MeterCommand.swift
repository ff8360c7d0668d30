import ArgumentParser
import Foundation
import PhotometerClient
import PhotometerProtocol

struct MeterCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "meter",
    abstract: "Register, list, show, change and remove meters.",
    subcommands: [Add.self, List.self, Show.self, Edit.self, Preview.self, Remove.self]
  )

  /// The settings `add` and `edit` share.
  struct Settings: ParsableArguments {
    @Option(help: "water, gas, electricity, heat, glucose, thermometer, blood-pressure or other.")
    var kind: MeterKindArgument?

    @Option(help: "The unit its readings are taken in (default: the kind's, e.g. m3, kWh, mg/dL, C).")
    var unit: String?

    @Option(help: "Where the digits are in the reference photo, as X,Y,W,H in pixels.")
    var roi: RegionArgument?

    @Option(help: "How many digits the display shows.")
    var digits: Int?

    @Option(help: "How many of them are decimals.")
    var decimals: Int?

    @Option(help: "Whether its value only goes up (default: yes for water, gas, electricity, heat).")
    var countsUp: Bool?

    @Option(help: "The most it can advance per hour.")
    var maxRate: Double?

    @Option(help: "The valid range of its values, as MIN,MAX.")
    var range: RangeArgument?

    @Option(help: "Free notes.")
    var notes: String?

    @Option(
      name: .customLong("dial"),
      help: ArgumentHelp(
        "A pointer dial, as X,Y,W,H:FACTOR[:ccw]: the box around it in the reference photo, what one division "
          + "is worth (0.1, 0.01, ... one decimal place below the last digit, coarsest first), ccw when its "
          + "numbers run anticlockwise. Repeat for each dial; with edit, the given dials replace the meter's.",
        valueName: "dial"),
      transform: { text in try Dial(parsing: text) })
    var dials: [Dial] = []

    @Flag(help: "Remove the meter's dials (edit).")
    var noDials = false

    @Option(
      help: ArgumentHelp(
        "Whether its last wheel's roll is read as one more decimal (a counter whose last wheel turns "
          + "continuously; ignored with dials)."))
    var extended: Bool?

    /// The fields these options set, and a meter holding their values.
    func changes(name: String, kind fallback: MeterKind) -> (Meter, [String]) {
      let kind = self.kind?.kind ?? fallback
      let meter = Meter(
        name: name, kind: kind, unit: unit ?? "", roi: roi?.rect, digits: digits ?? 0, decimals: decimals ?? 0,
        countsUp: countsUp ?? kind.countsUpByDefault, maxRatePerHour: maxRate, range: range?.range, notes: notes ?? "",
        dials: dials, extended: extended ?? false)
      let given: [(String, Bool)] = [
        ("kind", self.kind != nil), ("unit", unit != nil), ("roi", roi != nil), ("digits", digits != nil),
        ("decimals", decimals != nil), ("counts_up", countsUp != nil), ("max_rate_per_hour", maxRate != nil),
        ("range", range != nil), ("notes", notes != nil), ("dials", !dials.isEmpty || noDials),
        ("extended", extended != nil),
      ]
      return (meter, given.filter(\.1).map(\.0))
    }
  }

  struct Add: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Register a meter with one or more reference photos.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "Its name, unique (ignoring case).") var name: String
    @Option(name: .customLong("reference"), help: "A reference photo; repeat for more.") var references: [String]
    @OptionGroup var settings: Settings
    @Flag(help: "Print the meter as JSON.") var json = false

    func run() async throws {
      try await reportingFailures {
        let photos = try loadImages(references)
        let (meter, _) = settings.changes(name: name, kind: settings.kind?.kind ?? .other)
        let added = try await global.request(.addMeter(AddMeterRequest(meter: meter, references: photos)))
        json ? print(added.json.rendered) : print("Added \(added.summary)")
        if !json, settings.roi == nil, let found = added.roi {
          print(
            "Digit window found at \(found.x),\(found.y),\(found.width),\(found.height); check it with "
              + "`photometer meter preview \(added.name) -o FILE.png`, change it with --roi")
        }
      }
    }
  }

  struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the registered meters.")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "One JSON object per meter, one per line.") var json = false

    func run() async throws {
      try await reportingFailures {
        let meters = try await global.request(.listMeters)
        if json {
          meters.forEach { print($0.json.rendered) }
        } else {
          printTable(
            header: ["NAME", "KIND", "UNIT", "DIGITS", "PHOTOS", "READINGS", "NOTES"],
            rows: meters.map {
              [
                $0.name, $0.kind.rawValue, $0.unit.isEmpty ? "-" : $0.unit,
                $0.digits > 0 ? "\($0.digits).\($0.decimals)" : "-",
                "\($0.references.count)", "\($0.readingCount)", $0.notes,
              ]
            })
        }
      }
    }
  }

  struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show one meter's settings.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The meter's name.") var name: String
    @Flag(help: "Print the meter as JSON.") var json = false

    func run() async throws {
      try await reportingFailures {
        let meter = try await global.request(.getMeter(name: name, includePhotos: false))
        json ? print(meter.json.rendered) : print(meter.details)
      }
    }
  }

  struct Preview: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Draw a meter's digit window (green) and dials (magenta) on its reference photo, to check them.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The meter's name.") var name: String
    @Option(help: "Draw on this later photo instead, the regions carried as a read carries them.") var photo: String?
    @Option(name: .shortAndLong, help: "The PNG file to write.") var output: String

    func run() async throws {
      try await reportingFailures {
        let image = try photo.map { path throws(CommandFailure) in Image(data: try loadImage(path), name: path) }
        let preview = try await global.request(.previewMeter(name: name, photo: image))
        try writeFile(preview.data, to: output)
        print("Wrote \(output)")
      }
    }
  }

  struct Edit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Change a meter's settings or add reference photos.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The meter's name.") var name: String
    @Option(help: "A new name.") var rename: String?
    @Option(name: .customLong("add-reference"), help: "A reference photo to add; repeat for more.")
    var references: [String] = []
    @OptionGroup var settings: Settings

    func run() async throws {
      try await reportingFailures {
        let photos = try loadImages(references)
        var (changes, fields) = settings.changes(name: rename ?? name, kind: settings.kind?.kind ?? .other)
        if rename != nil { fields.append("name") }
        guard !fields.isEmpty || !photos.isEmpty else {
          throw CommandFailure.badInput("nothing to change: give a setting, --rename or --add-reference")
        }
        let request = EditMeterRequest(name: name, changes: changes, fields: fields, addReferences: photos)
        let meter = try await global.request(.editMeter(request))
        print("Changed \(meter.summary)")
      }
    }
  }

  struct Remove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Remove a meter; one with readings only with --with-readings.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The meter's name.") var name: String
    @Flag(help: "Remove its readings too.") var withReadings = false

    func run() async throws {
      try await reportingFailures {
        let removed = try await global.request(.removeMeter(name: name, withReadings: withReadings))
        print("Removed meter \(name) and \(removed) reading(s)")
      }
    }
  }
}
