// photometer-benchmark-protocol: the host<->plugin round trip against a raw pipe ping-pong, and
// the throughput of 1 MiB image payloads. A fixed workload; prints its figures.
//
//   swift build -c release && .build/release/photometer-benchmark-protocol [--round-trips N] [--payloads N]
//
// The machine's wake-up latency dominates small round trips and drifts over seconds, so the floor
// and each protocol measurement are taken in interleaved rounds and their samples pooled.
import ChildProcess
import Foundation
import Logging
import PhotometerProtocol
import PluginSupervisor

let arguments = CommandLine.arguments
if arguments.contains("--pipe-echo") {
  exit(PipeEcho.run())
}

func option(_ name: String, default value: Int) -> Int {
  guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count,
    let number = Int(arguments[index + 1])
  else { return value }
  return number
}

// The benchmark plays the host: it tunes its allocator as photometer-host does.
LargeFrameMemory.keepFreedBlocks()

let roundTrips = option("--round-trips", default: 20_000)
let payloads = option("--payloads", default: 200)
let rounds = 5
let folder = ChildProcess.executableFolder

var logger = Logger(label: "benchmark")
logger.logLevel = .warning

print(
  "Protocol benchmark: \(roundTrips) round trips of each kind in \(rounds) interleaved rounds, "
    + "\(payloads) payloads of 1 MiB, \(ProcessInfo.processInfo.activeProcessorCount) cores")

let plugin = PluginPool(
  configuration: PluginConfiguration(
    name: "testplugin", command: ["\(folder)/photometer-testplugin"], roles: [.read], options: ["text": "12345"]),
  hostHello: Hello(name: "photometer-protocol-benchmark", softwareVersion: PhotometerVersion.current),
  logger: logger
)
await plugin.start()
guard await plugin.status().state == .ready else {
  print("cannot start the test plugin: \(await plugin.status().reason)")
  exit(2)
}
let direct = try await DirectPlugin.start(executable: "\(folder)/photometer-testplugin")
let echo = try await PipeEcho.start(executable: "\(folder)/photometer-benchmark-protocol")

let smallRead = ReadRequest(image: Image(data: Array(repeating: 7, count: 64), name: "small"))
var floorSamples = Samples(milliseconds: [])
var directSamples = Samples(milliseconds: [])
var directReadSamples = Samples(milliseconds: [])
var pingSamples = Samples(milliseconds: [])
var readSamples = Samples(milliseconds: [])
let perRound = roundTrips / rounds
for _ in 0..<rounds {
  floorSamples.add(try await Samples.measure(perRound) { try echo.exchange() })
  directSamples.add(try await Samples.measure(perRound) { try direct.ping() })
  directReadSamples.add(try await Samples.measure(perRound) { try direct.send(smallRead) })
  pingSamples.add(try await Samples.measure(perRound) { _ = try await plugin.call(.ping()).outcome.get() })
  readSamples.add(try await Samples.measure(perRound) { _ = try await plugin.call(.read(smallRead)).outcome.get() })
}

let mebibyte = ReadRequest(
  image: Image(data: (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }, name: "1MiB"))
let largeSamples = try await Samples.measure(payloads) { _ = try await plugin.call(.read(mebibyte)).outcome.get() }
await plugin.drain()
await echo.stop()
await direct.stop()

print(Samples.header)
print(floorSamples.line("raw pipe ping-pong (the floor)"))
print(directSamples.line("Ping, framed protobuf, blocking"))
print(directReadSamples.line("small ReadRequest, blocking"))
print(pingSamples.line("Ping through the host's plugin pool"))
print(readSamples.line("small ReadRequest through the pool"))
print(largeSamples.line("1 MiB ReadRequest through the pool"))
print("")
print(String(format: "Framed protobuf Ping / floor (medians):       %.2fx", directSamples.median / floorSamples.median))
print(
  String(
    format: "Host plugin pool Ping / floor (medians):      %.2fx (goal: at most 1.3x)",
    pingSamples.median / floorSamples.median))
print(String(format: "Host plugin pool small read / floor:          %.2fx", readSamples.median / floorSamples.median))
print(
  String(
    format: "1 MiB payload throughput at the median:       %.0f MiB/s (goal: at least 250 MiB/s)",
    1000 / largeSamples.median))
