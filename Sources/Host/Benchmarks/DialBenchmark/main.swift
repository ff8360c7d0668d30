// photometer-benchmark-dials: the pointer dial reader on rendered water meters
// (Tools/make-dial-meters.py). Per set: the share of dials read within 0.2 of a division of the
// truth (and within 0.5), the mean error, and the time per dial (p50, p95; a meter's dials are read
// together and the time shared out) in this process; then whole meters, wheels and four dials as
// one value (DialChain), exact to the finest dial's digit, with the meters whose last wheel was
// caught mid-roll apart, beside the wheels alone.
//
//   swift build -c release --product photometer-benchmark-dials
//   .build/release/photometer-benchmark-dials SET-DIR... [--show-errors]
import DigitReader
import Foundation
import PhotometerVision

let arguments = Array(CommandLine.arguments.dropFirst())
let sets = arguments.filter { !$0.hasPrefix("--") }
guard !sets.isEmpty else {
  FileHandle.standardError.write(Data("usage: photometer-benchmark-dials SET-DIR... [--show-errors]\n".utf8))
  exit(2)
}
print("Dial evaluation, \(ProcessInfo.processInfo.activeProcessorCount) cores")
let showErrors = arguments.contains("--show-errors")
var scores: [(name: String, dials: DialScore, meters: CombinedScore)] = []
do {
  let reader = try SequenceReader.bundled()
  for set in sets {
    // Each photo decoded and each dial read once, for both tables.
    var (dials, meters) = (DialScore(), CombinedScore())
    let folder = URL(fileURLWithPath: set)
    for meter in try RenderedMeter.load(folder) {
      let image = try VisionImage(decoding: [UInt8](try Data(contentsOf: folder.appendingPathComponent(meter.file))))
      // A meter's dials read together, as the plugin reads them; the time is shared out.
      let started = ContinuousClock.now
      let readings = try PointerDial.read(
        meter.dials.map { PointerDial.Placement(region: $0.region, counterClockwise: $0.counterClockwise) }, in: image)
      let ms = Double((ContinuousClock.now - started).components.attoseconds) / 1e15 / Double(max(1, readings.count))
      for (dial, reading) in zip(meter.dials, readings) {
        dials.add(reading, of: dial, in: meter, ms: ms, showErrors: showErrors)
      }
      try meters.add(meter, image: image, dials: readings, reader: reader, showErrors: showErrors)
    }
    scores.append((folder.lastPathComponent, dials, meters))
  }
} catch {
  FileHandle.standardError.write(Data("\(error)\n".utf8))
  exit(1)
}
print("set | dials | within 0.2 | within 0.5 | mean error | p50 ms | p95 ms")
scores.forEach { print($0.dials.row($0.name)) }
print("set | meters | value exact | last wheel mid-roll | wheels alone exact")
scores.forEach { print($0.meters.row($0.name)) }
