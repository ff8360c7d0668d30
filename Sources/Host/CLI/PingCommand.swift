import ArgumentParser
import Foundation
import PhotometerProtocol

struct PingCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ping",
    abstract: "Check that the host answers, and time its round trips."
  )

  @OptionGroup var global: GlobalOptions

  @Option(help: "How many pings to send, one after another.")
  var count = 1

  @Flag(help: "One JSON object per ping, one per line.")
  var json = false

  func validate() throws {
    guard count > 0 else {
      throw ValidationError("--count must be at least 1")
    }
  }

  func run() async throws {
    try await reportingFailures {
      let client = try await global.connect()
      if !json {
        print("host: \(client.host.name) \(client.host.softwareVersion), protocol \(client.host.version)")
      }
      for sequence in 1...count {
        let ms = milliseconds(try await client.ping())
        if json {
          print(JSONValue.object([("sequence", .number(sequence)), ("ms", .number(ms))]).rendered)
        } else {
          print("pong \(sequence): \(String(format: "%.3f", ms)) ms")
        }
      }
      await client.close()
    }
  }
}
