// photometer-benchmark-dials: the pointer dial reader on rendered water meters
// (Tools/make-dial-meters.py). Per set: the share of dials read within 0.2 of a division of the
// truth (and within 0.5), the mean error, and the time per dial (p50, p95; a meter's dials are read
// together and the time shared out) in this process; then whole meters, wheels and four dials as
// one value (DialChain), exact to the finest dial's digit, with the meters whose last wheel was
// caught mid-roll apart, beside the wheels alone, and the wrong ones by what they got wrong
// (Mistake: the finest digit, the dials, the last wheel, higher wheels, both). With
// `--host PLUGINS.json` (sets written with `--references`), whole meters also read through
// photometer-host as a registered meter is: set up from its reference photo, the photo found and
// straightened through the identify homography (HostScore; its wheels' window set up with a
// fifth of its height to spare above and below, as the README asks of a user, `--margin` another
// share; `--wheels-only` sets each meter up again without its dials, `--history` again counting
// up after a reading a day before); and, in process, each meter found in its photo by its dials
// alone (LocateScore), the fallback the host takes when the identify plugins do not locate it.
// `--cell-model FILE.onnx` reads the wheels in process with another training of the cell
// classifier, for comparing trainings.
//
//   swift build -c release
//   .build/release/photometer-benchmark-dials SET-DIR... [--show-errors]
//     [--host PLUGINS.json [--wheels-only] [--history] [--margin SHARE]] [--cell-model FILE.onnx]
import ArgumentParser
import DigitReader
import Foundation
import PhotometerProtocol
import PhotometerVision

@main
struct DialBenchmark: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "photometer-benchmark-dials",
    abstract: "Read rendered water meters' pointer dials, and whole meters as one value.")

  @Argument(help: "Folders of rendered meters (Tools/make-dial-meters.py).")
  var sets: [String]

  @Flag(help: "List every dial and meter read wrong.")
  var showErrors = false

  @Option(
    name: .customLong("host"),
    help: ArgumentHelp(
      "Also read whole meters through photometer-host and the plugins of this file.", valueName: "plugins.json"))
  var plugins: String?

  @Flag(help: "With --host, also set each meter up with its wheels' window alone and read it so.")
  var wheelsOnly = false

  @Option(
    help: ArgumentHelp(
      "With --host, the share of the wheels' window's height set up to spare above and below it (0: its frame).",
      valueName: "share"))
  var margin = 0.2

  @Flag(
    help: """
      With --host, also read every meter set up again as counting up, with a reading taken a day \
      before 0.1 to 0.6 m3 below the truth.
      """)
  var history = false

  @Option(help: ArgumentHelp("Read the wheels with another training of the cell classifier.", valueName: "file.onnx"))
  var cellModel: String?

  func run() async throws {
    print("Dial evaluation, \(ProcessInfo.processInfo.activeProcessorCount) cores")
    var scores: [(name: String, dials: DialScore, meters: CombinedScore)] = []
    var hostScores: [(name: String, score: HostScore)] = []
    var locateScores: [(name: String, score: LocateScore)] = []
    let cells = try cellModel.map { try CellClassifier(model: URL(fileURLWithPath: $0)) } ?? CellClassifier.bundled()
    let reader = ReaderPanel(try ReaderPanel.bundledNetworks().map { SequenceReader(network: $0, cells: cells) })
    for set in sets {
      // Each photo decoded and each dial read once, for both tables.
      var (dials, meters, located) = (DialScore(), CombinedScore(), LocateScore())
      let folder = URL(fileURLWithPath: set)
      let rendered = try RenderedMeter.load(folder)
      for meter in rendered {
        let image = try VisionImage(
          decoding: [UInt8](try Data(contentsOf: folder.appendingPathComponent(meter.file))))
        // A meter's dials read together, as the plugin reads them; the time is shared out.
        let started = ContinuousClock.now
        let readings = try PointerDial.read(
          meter.dials.map { PointerDial.Placement(region: $0.region, counterClockwise: $0.counterClockwise) },
          in: image)
        let ms = (ContinuousClock.now - started).milliseconds / Double(max(1, readings.count))
        for (dial, reading) in zip(meter.dials, readings) {
          dials.add(reading, of: dial, in: meter, ms: ms, showErrors: showErrors)
        }
        try meters.add(meter, image: image, dials: readings, reader: reader, showErrors: showErrors)
        try located.add(meter, photo: image, folder: folder, showErrors: showErrors)
      }
      scores.append((folder.lastPathComponent, dials, meters))
      if located.meters > 0 {
        locateScores.append((folder.lastPathComponent, located))
      }
      if let plugins {
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("dials-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: store) }
        let client = try await HostScore.launch(plugins: URL(fileURLWithPath: plugins), folder: store)
        var score = HostScore()
        for meter in rendered {
          try await score.add(meter, folder: folder, client: client, margin: margin, showErrors: showErrors)
        }
        hostScores.append((folder.lastPathComponent, score))
        if history {
          var later = HostScore()
          for (index, meter) in rendered.enumerated() {
            // Spread evenly over 0.1-0.6 m3, a household's day, meter by meter (golden-ratio steps).
            let used = 0.1 + 0.5 * (Double(index) * 0.618_034).truncatingRemainder(dividingBy: 1)
            try await later.add(
              meter, folder: folder, client: client, margin: margin, used: used, tag: "history-",
              showErrors: showErrors)
          }
          hostScores.append((folder.lastPathComponent + ", a day-old reading", later))
        }
        if wheelsOnly {
          var wheels = HostScore()
          for meter in rendered {
            try await wheels.add(
              meter, folder: folder, client: client, withDials: false, margin: margin, showErrors: showErrors)
          }
          hostScores.append((folder.lastPathComponent + ", wheels only", wheels))
        }
        await client.close()
      }
    }
    print("set | dials | within 0.2 | within 0.5 | mean error | p50 ms | p95 ms")
    scores.forEach { print($0.dials.row($0.name)) }
    print(
      "set | meters | value exact | last wheel mid-roll | wheels alone exact | wrong meters by what they got wrong")
    scores.forEach { print($0.meters.row($0.name)) }
    hostScores.forEach { print($0.score.row($0.name)) }
    if !locateScores.isEmpty {
      print("set | meters | placed by the dials alone, p50 | and refined with the reference (ECC), p50")
      locateScores.forEach { print($0.score.row($0.name)) }
    }
  }
}
