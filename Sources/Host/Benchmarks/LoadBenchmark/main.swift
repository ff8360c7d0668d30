// photometer-benchmark-load: the soak test. Eight clients, each with a host of its own on one
// shared database file, identify, read and store for a fixed time; then every acknowledged
// reading must be in the database exactly once, no process may be left, and the memory of the
// hosts and plugins must have stayed flat. Then 100,000 small requests through one host.
//
//   swift build -c release && .build/release/photometer-benchmark-load HOUSEHOLD-DIR \
//     [--minutes 10] [--clients 8] [--pings 100000] [--plugins plugins.json] [--list-every 10]
//
// HOUSEHOLD-DIR comes from Tools/make-households.py (its first 10 meters are registered).
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
  arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}
guard let household = arguments.first, !household.hasPrefix("--") else {
  FileHandle.standardError.write(
    Data("usage: photometer-benchmark-load HOUSEHOLD-DIR [--minutes M] [--clients N] [--pings N] [--plugins F]\n".utf8))
  exit(2)
}
let settings = LoadTest.Settings(
  household: household,
  minutes: option("--minutes").flatMap(Double.init) ?? 10,
  clients: option("--clients").flatMap(Int.init) ?? 8,
  pings: option("--pings").flatMap(Int.init) ?? 100_000,
  plugins: option("--plugins") ?? "plugins.json",
  listEvery: option("--list-every").flatMap(Int.init) ?? 10)
do {
  let passed = try await LoadTest(settings).run()
  exit(passed ? 0 : 1)
} catch {
  print("error: \(error)")
  exit(2)
}
