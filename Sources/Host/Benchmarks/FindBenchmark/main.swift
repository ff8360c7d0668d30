// photometer-benchmark-find: reading whole photos with no window given (Tools/make-device-photos.py;
// Tools/make-dial-meters.py's water meters too, their wheels the window).
// Per set: the share of photos whose chosen row overlaps the true digits by IoU 0.5 or more, the
// share read right not told the device's kind and told it, and the time a photo takes in this
// process (finding rows, reading each with the sequence reader, choosing), p50 and p95, not told
// the kind and told it.
//
//   swift build -c release
//   .build/release/photometer-benchmark-find SET-DIR... [--show-errors] [--crops DIR] [--host PLUGINS.json]
//       [--finders components|network|both]
//
// `--crops DIR` writes every candidate row as read, NAME-INDEX.png, best first. `--host` adds a
// row per set read through photometer-host and the plugins of PLUGINS.json (every read plugin, the
// shadows too), as a client sends the photos, one at a time; its time is the client's.
// `--finders` picks where the in-process rows come from (RowFinder.Finders; the host's,
// `.shipped`, by default).
import DigitReader
import Foundation
import PhotometerProtocol
import PhotometerVision
import PhotometerVoting

let arguments = Array(CommandLine.arguments.dropFirst())
func value(_ option: String) -> String? {
  arguments.firstIndex(of: option).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}
let crops = value("--crops")
let plugins = value("--host")
let findersName = value("--finders")
let sets = arguments.filter { !$0.hasPrefix("--") && $0 != crops && $0 != plugins && $0 != findersName }
guard let finders = findersName.map({ RowFinder.Finders(rawValue: $0) }) ?? .some(.shipped) else {
  FileHandle.standardError.write(Data("--finders takes components, network or both, not \(findersName ?? "")\n".utf8))
  exit(2)
}
guard !sets.isEmpty else {
  FileHandle.standardError.write(
    Data("usage: photometer-benchmark-find SET-DIR... [--show-errors] [--crops DIR] [--host PLUGINS.json]\n".utf8))
  exit(2)
}
print("Find evaluation, \(ProcessInfo.processInfo.activeProcessorCount) cores")
print(FindTally.header)
do {
  let reader = try SequenceReader.bundled()
  let finder = try RowFinder.bundled()
  for set in sets {
    let folder = URL(fileURLWithPath: set)
    var score = FindScore()
    let photos = try DevicePhoto.load(folder)
    for photo in photos {
      try score.add(
        photo.bytes, kind: photo.kind, value: photo.value, box: photo.box, reader: reader,
        showErrors: arguments.contains("--show-errors"), name: photo.name,
        crops: crops.map { URL(fileURLWithPath: $0) }, finder: finder, finders: finders)
    }
    print(score.tally.row(folder.lastPathComponent))
    if let plugins, let first = photos.first {
      let work = FileManager.default.temporaryDirectory.appendingPathComponent("find-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: work) }
      let client = try await HostScore.launch(
        plugins: URL(fileURLWithPath: plugins), folder: work, warmUp: first.bytes)
      var hostScore = HostScore()
      for photo in photos {
        try await hostScore.add(
          photo.bytes, kind: photo.kind, value: photo.value, box: photo.box, client: client,
          showErrors: arguments.contains("--show-errors"), name: photo.name)
      }
      await client.close()
      print(hostScore.tally.row("\(folder.lastPathComponent) (host)"))
    }
  }
} catch {
  FileHandle.standardError.write(Data("\(error)\n".utf8))
  exit(1)
}
