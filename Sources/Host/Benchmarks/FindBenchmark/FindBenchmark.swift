// photometer-benchmark-find: reading whole photos with no window given (Tools/make-device-photos.py;
// Tools/make-dial-meters.py's water meters too, their wheels the window).
// Per set: the share of photos whose chosen row's digits overlap the true digits by IoU 0.5 or
// more (and the window as cut, with its margin), the share read right not told the device's kind
// and told it, and the time a photo takes in this process (finding rows, reading each with the
// sequence reader, choosing), p50 and p95, not told the kind and told it. In process the photos
// are read as they came: the host also searches those the orientation finder names turned, so
// the in-process figures differ from the host's on them (their count is printed; judge by --host).
//
//   swift build -c release
//   .build/release/photometer-benchmark-find SET-DIR... [--show-errors] [--crops DIR] [--host PLUGINS.json]
//       [--finders components|network|both] [--kind KIND]
import ArgumentParser
import DigitReader
import Foundation
import PhotometerProtocol
import PhotometerVision
import PhotometerVoting

extension RowFinder.Finders: ExpressibleByArgument {}
extension MeterKind: ExpressibleByArgument {}

@main
struct FindBenchmark: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "photometer-benchmark-find",
    abstract: "Read whole photos with no window given: rows found, each read, one chosen.")

  @Argument(help: "Folders of labelled device photos (labels.csv).")
  var sets: [String]

  @Flag(help: "List every photo read wrong or whose window was missed.")
  var showErrors = false

  @Option(help: "Write every candidate row as read to DIR (made if missing), NAME-INDEX.png, best first.")
  var crops: String?

  @Option(
    name: .customLong("host"),
    help: ArgumentHelp(
      "Also read each set through photometer-host and the plugins of this file, as a client sends them.",
      valueName: "plugins.json"))
  var plugins: String?

  @Option(help: "Where the in-process rows come from: components, network or both (the host's).")
  var finders: RowFinder.Finders = .shipped

  @Option(
    help: ArgumentHelp(
      "Tell every photo this kind instead of its own (thermometer: the glucose meters fit no format, so the "
        + "told reads time the re-reads in the kind's formats).", valueName: "kind"))
  var kind: MeterKind?

  func run() async throws {
    print("Find evaluation, \(ProcessInfo.processInfo.activeProcessorCount) cores")
    print(FindTally.header)
    // As the plugin reads rows found in a whole photo (ReadRequest.foundRow).
    let reader = try ReaderPanel.bundledForFoundRows()
    let finder = try RowFinder.bundled()
    let orientation = try OrientationFinder.bundled()
    if let crops {
      try FileManager.default.createDirectory(atPath: crops, withIntermediateDirectories: true)
    }
    for set in sets {
      let folder = URL(fileURLWithPath: set)
      var score = FindScore()
      let photos = try DevicePhoto.load(folder)
      for photo in photos {
        try score.add(
          photo.bytes, kind: kind ?? photo.kind, value: photo.value, box: photo.box, reader: reader,
          showErrors: showErrors,
          name: photo.name, crops: crops.map { URL(fileURLWithPath: $0) }, finder: finder, finders: finders,
          orientation: orientation)
      }
      print(score.tally.row(folder.lastPathComponent))
      if score.misses.photos > 0 {
        print(score.misses.row(folder.lastPathComponent))
      }
      if let plugins, let first = photos.first {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("find-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let client = try await HostScore.launch(
          plugins: URL(fileURLWithPath: plugins), folder: work, warmUp: first.bytes)
        var hostScore = HostScore()
        for photo in photos {
          try await hostScore.add(
            photo.bytes, kind: kind ?? photo.kind, value: photo.value, box: photo.box, client: client,
            showErrors: showErrors,
            name: photo.name)
        }
        await client.close()
        print(hostScore.tally.row("\(folder.lastPathComponent) (host)"))
      }
    }
  }
}
