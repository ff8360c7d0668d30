import PhotometerProtocol
import PhotometerVoting

extension PluginSet {
  /// Every read plugin's answer to `request`, and their vote.
  public func read(_ request: ReadRequest) async throws(ErrorReply) -> ReadResult {
    let calls = await fanOut(.read(request), role: .read)
    guard !calls.isEmpty else {
      throw ErrorReply(.noPlugins, "no enabled plugin has the role 'read'; add one to plugins.json")
    }
    let answers = calls.map { configuration, call in
      EngineAnswer(
        plugin: configuration.name,
        version: call.version,
        outcome: call.outcome.flatMap { reply in
          guard case .engineReading(let reading) = reply else {
            return .failure(unexpected(reply, to: "ReadRequest", plugin: configuration.name))
          }
          return .success(reading)
        },
        milliseconds: call.milliseconds,
        voted: configuration.mode == .vote
      )
    }
    let vote = ReadVote.decide(answers, weights: weights)
    let summary =
      vote.value.isEmpty
      ? "No reading: \(vote.flags.joined(separator: ", "))"
      : "Reads \(vote.value) (confidence \(percent(vote.confidence)))"
    return ReadResult(
      value: vote.value, confidence: vote.confidence, engines: answers, flags: vote.flags, summary: summary)
  }

  /// Every identify plugin's candidates for `request`, and their vote.
  public func identify(_ request: IdentifyRequest) async throws(ErrorReply) -> IdentifyResult {
    let calls = await fanOut(.identify(request), role: .identify)
    guard !calls.isEmpty else {
      throw ErrorReply(.noPlugins, "no enabled plugin has the role 'identify'; add one to plugins.json")
    }
    let answers = calls.map { configuration, call in
      PluginIdentification(
        plugin: configuration.name,
        version: call.version,
        outcome: call.outcome.flatMap { reply in
          guard case .pluginCandidates(let candidates) = reply else {
            return .failure(unexpected(reply, to: "IdentifyRequest", plugin: configuration.name))
          }
          return .success(candidates)
        },
        milliseconds: call.milliseconds,
        voted: configuration.mode == .vote
      )
    }
    let vote = IdentifyVote.decide(answers, weights: weights)
    let summary =
      vote.meter.isEmpty
      ? "Unknown meter" + (vote.ranking.first.map { "; closest is \($0.meter) (\(percent($0.confidence)))" } ?? "")
      : "This is \(vote.meter) (confidence \(percent(vote.confidence)))"
    return IdentifyResult(
      meter: vote.meter, confidence: vote.confidence, candidates: vote.ranking, plugins: answers, summary: summary)
  }
}

private func unexpected(_ reply: Message, to request: String, plugin: String) -> ErrorReply {
  ErrorReply(.pluginFailed, "the plugin answered a \(request) with \(reply.kind)", plugin: plugin)
}

private func percent(_ value: Double) -> String {
  "\(Int((value * 100).rounded()))%"
}
