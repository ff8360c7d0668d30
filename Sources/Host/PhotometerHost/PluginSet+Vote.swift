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
  /// plugins' weights; see ``PluginSet/identifyAnswers(_:referenceImages:)`` for `referenceImages`.
  public func identify(
    _ request: IdentifyRequest,
    referenceImages: @escaping @Sendable ([String]) async -> [String: Image] = { _ in [:] }
  ) async throws(ErrorReply) -> IdentifyResult {
    IdentifyVote.result(
      try await identifyAnswers(request, referenceImages: referenceImages), weights: weights,
      meters: Set(request.references.map(\.meter)).count)
  }
}
