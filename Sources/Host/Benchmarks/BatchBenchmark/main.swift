// photometer-benchmark-batch: a batch of reads through the host with each read plugin as a pool
// of 1, then of 2 instances. Prints requests per second, how many of the 2 cores the host and its
// plugins kept busy, and the idle and peak memory of the host and of each plugin.
//
//   swift build -c release && .build/release/photometer-benchmark-batch SET-DIR [--requests 1000]
//
// SET-DIR holds images and labels.csv (Tools/make-digits.py); the images are read in turn, each
// with its label's digit count, 16 requests in flight at a time.
import ChildProcess
import Foundation
import PhotometerClient
import PhotometerProtocol
import PhotometerScoring

let arguments = Array(CommandLine.arguments.dropFirst())
guard let directory = arguments.first(where: { !$0.hasPrefix("--") }) else {
  FileHandle.standardError.write(Data("usage: photometer-benchmark-batch SET-DIR [--requests N]\n".utf8))
  exit(2)
}
let requests = arguments.firstIndex(of: "--requests").flatMap { Int(arguments[$0 + 1]) } ?? 1000

do {
  let images = try LabelledSet.load(directory).map { labelled in
    ReadRequest(
      image: Image(data: [UInt8](try Data(contentsOf: URL(fileURLWithPath: labelled.path)))),
      digits: UInt32(labelled.text.count))
  }
  print(
    "Batch of \(requests) reads of \(URL(fileURLWithPath: directory).lastPathComponent), "
      + "\(ProcessInfo.processInfo.activeProcessorCount) cores, 16 in flight")
  print("instances  requests/s  cores busy  host MiB (idle peak)  plugins MiB (idle peak)")
  for instances in [1, 2] {
    let run = try await BatchRun.measure(images: images, requests: requests, instances: instances)
    print(run.line)
  }
} catch {
  print("error: \(error)")
  exit(1)
}
