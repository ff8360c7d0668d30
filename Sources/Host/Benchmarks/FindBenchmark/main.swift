// photometer-benchmark-find: reading whole photos with no window given (Tools/make-device-photos.py).
// Per set: the share of photos whose chosen row overlaps the true digits by IoU 0.5 or more, the
// share read right not told the device's kind and told it, and the time a photo takes in this
// process (finding rows, reading each with the sequence reader, choosing), p50 and p95.
//
//   swift build -c release --product photometer-benchmark-find
//   .build/release/photometer-benchmark-find SET-DIR... [--show-errors] [--crops DIR]
//
// `--crops DIR` writes every candidate row as read, NAME-INDEX.png, best first.
import DigitReader
import Foundation
import PhotometerProtocol
import PhotometerVision
import PhotometerVoting

let arguments = Array(CommandLine.arguments.dropFirst())
let crops = arguments.firstIndex(of: "--crops").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
let sets = arguments.filter { !$0.hasPrefix("--") && $0 != crops }
guard !sets.isEmpty else {
  FileHandle.standardError.write(Data("usage: photometer-benchmark-find SET-DIR... [--show-errors]\n".utf8))
  exit(2)
}
print("Find evaluation, \(ProcessInfo.processInfo.activeProcessorCount) cores")
print("set | photos | window found | right, not told the kind | right, told the kind | p50 ms | p95 ms")
do {
  let reader = try SequenceReader.bundled()
  for set in sets {
    let folder = URL(fileURLWithPath: set)
    var score = FindScore()
    let text = try String(contentsOf: folder.appendingPathComponent("labels.csv"), encoding: .utf8)
    for line in text.split(separator: "\n").dropFirst() {
      let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(fields[0])))
      let truth = fields[3].split(separator: " ").compactMap { Int32($0) }
      try score.add(
        bytes, kind: fields[1] == "glucose" ? .glucose : .thermometer, value: fields[2],
        box: Rect(x: truth[0], y: truth[1], width: truth[2], height: truth[3]), reader: reader,
        showErrors: arguments.contains("--show-errors"), name: fields[0],
        crops: crops.map { URL(fileURLWithPath: $0) })
    }
    print(score.row(folder.lastPathComponent))
  }
} catch {
  FileHandle.standardError.write(Data("\(error)\n".utf8))
  exit(1)
}
