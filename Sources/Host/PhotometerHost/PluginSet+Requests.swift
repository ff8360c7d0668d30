import PhotometerProtocol
import PhotometerVoting

extension PluginSet {
  /// Every read plugin's answer to `request`, and their vote.
  public func read(_ request: ReadRequest) async throws(ErrorReply) -> ReadResult {
    let answers = try await ask(.read(request), role: .read) { reply in
      if case .engineReading(let reading) = reply { reading } else { nil }
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
    let answers = try await ask(.identify(request), role: .identify) { reply in
      if case .pluginCandidates(let candidates) = reply { candidates } else { nil }
    }
    let vote = IdentifyVote.decide(answers, weights: weights)
    let summary =
      vote.meter.isEmpty
      ? "Unknown meter" + (vote.ranking.first.map { "; closest is \($0.meter) (\(percent($0.confidence)))" } ?? "")
      : "This is \(vote.meter) (confidence \(percent(vote.confidence)))"
    return IdentifyResult(
      meter: vote.meter, confidence: vote.confidence, candidates: vote.ranking, plugins: answers, summary: summary)
  }

  /// Sends `message` to every enabled plugin with `role` and takes each reply apart with
  /// `extract`; a reply of another kind counts as that plugin failing.
  private func ask<Value>(
    _ message: Message,
    role: Role,
    extract: (Message) -> Value?
  ) async throws(ErrorReply) -> [PluginAnswer<Value>] {
    let calls = await fanOut(message, role: role)
    guard !calls.isEmpty else {
      throw ErrorReply(.noPlugins, "no enabled plugin has the role '\(role)'; add one to plugins.json")
    }
    return calls.map { configuration, call in
      PluginAnswer(
        plugin: configuration.name,
        version: call.version,
        outcome: call.outcome.flatMap { reply in
          guard let value = extract(reply) else {
            return .failure(
              ErrorReply(
                .pluginFailed, "the plugin answered a \(message.kind) with \(reply.kind)", plugin: configuration.name))
          }
          return .success(value)
        },
        milliseconds: call.milliseconds,
        voted: configuration.mode == .vote
      )
    }
  }
}

private func percent(_ value: Double) -> String {
  "\(Int((value * 100).rounded()))%"
}
