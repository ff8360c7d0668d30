import ArgumentParser
import Foundation
import PhotometerClient
import PhotometerProtocol

/// `photometer replay FILE`: a host's recorded traffic run again against a plugin set, with the
/// answers that changed.
struct ReplayCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "replay",
    abstract: "Run recorded read and identify requests again and show where the answers differ.",
    discussion: """
      FILE is a recording made with `photometer-host --record FILE` (or `photometer --record \
      FILE ...`). Its read and identify requests go, one at a time, to a host with --plugins \
      (e.g. a configuration with a new engine or version) and --db; nothing is saved again and \
      store requests are skipped. Each answer is compared with the recorded one: the value or \
      meter, and each engine's or plugin's answer.
      """)

  @OptionGroup var global: GlobalOptions
  @Argument(help: "The recording.") var file: String
  @Flag(help: "One JSON object per replayed request, one per line.") var json = false

  func run() async throws {
    try await reportingFailures {
      let exchanges = try loadExchanges()
      let client = try await global.connect()
      var differing = 0
      var replayed = 0
      do {
        for exchange in exchanges {
          guard let request = exchange.replayable else { continue }
          replayed += 1
          let reply: Message
          do {
            reply = try await client.request(request)
          } catch let error as ErrorReply {
            reply = .error(error)
          }
          let changes = Self.differences(exchange.reply, reply)
          differing += changes.isEmpty ? 0 : 1
          if json {
            print(
              JSONValue.object([
                ("request_id", .number(exchange.request.requestID)), ("kind", .string(request.kind)),
                ("image", .optional(exchange.image)), ("differs", .bool(!changes.isEmpty)),
                ("changes", .array(changes.map { .string($0) })),
              ]).rendered)
          } else if !changes.isEmpty {
            print(
              "#\(exchange.request.requestID) \(request.kind) \(exchange.image ?? ""): \(changes.joined(separator: "; "))"
            )
          }
        }
        await client.close()
      } catch {
        await client.close()
        throw error
      }
      if !json {
        print(
          "Replayed \(replayed) requests: \(differing) answered differently, \(replayed - differing) the same; "
            + "\(exchanges.count - replayed) other requests skipped")
      }
    }
  }

  /// A recorded request and the reply the host gave it then.
  struct Exchange {
    var request: Envelope
    var reply: Message?

    /// The request to send again: reads and identifies, saving and streams turned off.
    var replayable: Message? {
      switch request.message {
      case .read(var read):
        read.save = false
        read.stream = ""
        return .read(read)
      case .identify:
        return request.message
      default:
        return nil
      }
    }

    var image: String? {
      switch request.message {
      case .read(let read): read.image.name
      case .identify(let identify): identify.image.name
      default: nil
      }
    }
  }

  /// The recording's requests in order, each with the first reply after it to its id.
  private func loadExchanges() throws -> [Exchange] {
    guard let data = FileManager.default.contents(atPath: file) else {
      throw CommandFailure.badInput("cannot read the recording \(file)")
    }
    var decoder = FrameDecoder()
    decoder.append(data)
    var exchanges: [Exchange] = []
    var pending: [UInt64: Int] = [:]
    do {
      while let frame = try decoder.nextFrame() {
        let entry = try Recorded(serialized: frame)
        switch entry.direction {
        case .request:
          pending[entry.envelope.requestID] = exchanges.count
          exchanges.append(Exchange(request: entry.envelope))
        case .reply:
          if let index = pending.removeValue(forKey: entry.envelope.requestID) {
            exchanges[index].reply = entry.envelope.message
          }
        }
      }
      try decoder.finish()
    } catch {
      throw CommandFailure.badInput("\(file) is not a whole recording: \(error)")
    }
    return exchanges
  }

  /// What changed from the recorded reply to the new one, in words; empty when nothing did.
  static func differences(_ recorded: Message?, _ replayed: Message) -> [String] {
    switch (recorded, replayed) {
    case (.readResult(let old), .readResult(let new)):
      var changes: [String] = []
      if old.value != new.value {
        changes.append("value \(shown(old.value)) -> \(shown(new.value))")
      }
      changes += answerChanges(old.engines, new.engines) { $0.text }
      return changes
    case (.identifyResult(let old), .identifyResult(let new)):
      var changes: [String] = []
      if old.meter != new.meter {
        changes.append("meter \(shown(old.meter)) -> \(shown(new.meter))")
      }
      changes += answerChanges(old.plugins, new.plugins) { $0.first?.meter ?? "" }
      return changes
    case (nil, _):
      return ["no recorded reply to compare with"]
    default:
      return recorded == replayed ? [] : ["\(describe(recorded!)) -> \(describe(replayed))"]
    }
  }

  /// Per plugin, what its answer became: changed, new, gone.
  private static func answerChanges<Value>(
    _ old: [PluginAnswer<Value>], _ new: [PluginAnswer<Value>], _ summary: (Value) -> String
  ) -> [String] {
    func text(_ answer: PluginAnswer<Value>) -> String {
      switch answer.outcome {
      case .success(let value): shown(summary(value))
      case .failure(let error): "error (\(error.code))"
      }
    }
    var changes: [String] = []
    for answer in new {
      if let before = old.first(where: { $0.plugin == answer.plugin }) {
        if text(before) != text(answer) {
          changes.append("\(answer.plugin) \(text(before)) -> \(text(answer))")
        }
      } else {
        changes.append("\(answer.plugin) (new) \(text(answer))")
      }
    }
    for answer in old where !new.contains(where: { $0.plugin == answer.plugin }) {
      changes.append("\(answer.plugin) (gone) was \(text(answer))")
    }
    return changes
  }

  private static func shown(_ text: String) -> String { text.isEmpty ? "none" : text }

  private static func describe(_ message: Message) -> String {
    if case .error(let error) = message {
      return "error \(error.code): \(error.message)"
    }
    return message.kind
  }
}
