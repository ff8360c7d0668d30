// photometer-benchmark-protocol: the host<->plugin round trip against a raw pipe ping-pong, and
// the throughput of 1 MiB image payloads. A fixed workload; prints its figures.
//
//   swift run -c release photometer-benchmark-protocol [--round-trips N] [--payloads N]
import ChildProcess
import Foundation
import Logging
import PhotometerHost
import PhotometerProtocol

let arguments = CommandLine.arguments
if arguments.contains("--pipe-echo") {
  exit(PipeEcho.run())
}

func option(_ name: String, default value: Int) -> Int {
  guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let number = Int(arguments[index + 1])
  else { return value }
  return number
}

let roundTrips = option("--round-trips", default: 20_000)
let payloads = option("--payloads", default: 200)
let folder = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
  .deletingLastPathComponent().path

var logger = Logger(label: "benchmark")
logger.logLevel = .warning

print(
  "Protocol benchmark: \(roundTrips) round trips, \(payloads) payloads of 1 MiB, \(ProcessInfo.processInfo.activeProcessorCount) cores"
)

let floorSamples = try await PipeEcho.measure(
  executable: "\(folder)/photometer-benchmark-protocol", roundTrips: roundTrips)
print(Samples.header)
print(floorSamples.line("raw pipe ping-pong (floor)"))

let plugin = PluginInstance(
  configuration: PluginConfiguration(
    name: "testplugin", command: ["\(folder)/photometer-testplugin"], roles: [.read], options: ["text": "12345"]),
  hostHello: Hello(name: HostServer.name, softwareVersion: HostServer.version),
  logger: logger
)
if case .failure(let error) = await plugin.start() {
  print("cannot start the test plugin: \(error)")
  exit(2)
}

let pingSamples = try await Samples.measure(roundTrips) { _ = try await plugin.call(.ping(payload: [])).outcome.get() }
print(pingSamples.line("host<->plugin Ping"))
let smallRead = ReadRequest(image: Image(data: Array(repeating: 7, count: 64), name: "small"))
let readSamples = try await Samples.measure(roundTrips) { _ = try await plugin.call(.read(smallRead)).outcome.get() }
print(readSamples.line("host<->plugin small ReadRequest"))

let mebibyte = ReadRequest(
  image: Image(data: (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }, name: "1MiB"))
let largeSamples = try await Samples.measure(payloads) { _ = try await plugin.call(.read(mebibyte)).outcome.get() }
print(largeSamples.line("host->plugin 1 MiB ReadRequest"))
await plugin.stop()

print("")
print(
  String(
    format: "Ping round trip / raw pipe floor (medians): %.2fx (goal: at most 1.3x)",
    pingSamples.median / floorSamples.median))
print(
  String(format: "Small read round trip / raw pipe floor (medians): %.2fx", readSamples.median / floorSamples.median))
print(
  String(
    format: "1 MiB payload throughput: %.0f MiB/s at the median (goal: at least 250 MiB/s)", 1000 / largeSamples.median)
)
