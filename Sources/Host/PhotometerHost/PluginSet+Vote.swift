import PhotometerProtocol
import PhotometerVoting
import PluginSupervisor

extension PluginSet {
  /// Every read plugin's answer to `request` and their vote (``ReadVote``), with the plugins'
  /// weights; see ``PluginSet/readAnswers(_:exampleCrops:)`` for `exampleCrops`.
  public func read(
    _ request: ReadRequest, expectedDigits: Int = 0,
    exampleCrops: @escaping @Sendable ([String]) async -> [Example] = { _ in [] }
  ) async throws(ErrorReply) -> ReadResult {
    ReadVote.result(
      try await readAnswers(request, exampleCrops: exampleCrops), weights: weights, expectedDigits: expectedDigits)
  }

  /// Every identify plugin's candidates for `request` and their vote (``IdentifyVote``), with the
  /// plugins' weights.
  public func identify(_ request: IdentifyRequest) async throws(ErrorReply) -> IdentifyResult {
    IdentifyVote.result(
      try await identifyAnswers(request), weights: weights, meters: Set(request.references.map(\.meter)).count)
  }
}
