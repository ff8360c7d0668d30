import PhotometerProtocol

extension PluginSet {
  /// Every read plugin's answer to `request`, in the order of the configuration; the shadows'
  /// only when the request asks for them (``ReadRequest/shadows``) and is no survey read
  /// (``ReadRequest/survey``). The vote is the caller's (`ReadVote`).
  ///
  /// The request's examples go to plugins without their crops; a plugin that learns and has not
  /// seen one lists it as missing, and is asked again with the crops `exampleCrops` gives for
  /// those keys.
  public func readAnswers(
    _ request: ReadRequest, exampleCrops: @escaping @Sendable ([String]) async -> [Example] = { _ in [] }
  ) async throws(ErrorReply) -> [EngineAnswer] {
    // A survey read is compared and mostly dropped; a shadow's answer is kept only with a reading.
    let calls = await fanOut(role: .read, where: { Self.asks($0, request) }) { pool in
      await Self.read(request, with: pool, exampleCrops: exampleCrops)
    }
    return try answers(calls, role: .read)
  }

  /// The answers of a survey read (``ReadRequest/survey``) of `request` made those of a full
  /// read: the plugins whose survey reading is ``EngineReading/refinable``, and those the survey
  /// left out (the shadows, when `request` asks for them), read `request` in full; every other
  /// answer stands, failures included, and so does a survey reading whose full read fails. In
  /// configuration order; `survey` itself when no plugin is to read again.
  public func completedReadAnswers(
    _ request: ReadRequest, survey: [EngineAnswer],
    exampleCrops: @escaping @Sendable ([String]) async -> [Example] = { _ in [] }
  ) async -> [EngineAnswer] {
    let surveyed = Dictionary(survey.map { ($0.plugin, $0) }, uniquingKeysWith: { first, _ in first })
    var full = request
    full.survey = false
    let readsAgain = { (name: String) in surveyed[name].map { $0.value?.refinable == true } ?? true }
    let calls = await fanOut(
      role: .read, where: { readsAgain($0.name) && Self.asks($0, full) }
    ) { [full] pool in
      await Self.read(full, with: pool, exampleCrops: exampleCrops)
    }
    guard !calls.isEmpty else { return survey }
    var answers = surveyed
    for (configuration, call) in calls where (try? call.outcome.get()) != nil || answers[configuration.name] == nil {
      answers[configuration.name] = Self.answer(call, of: configuration)
    }
    return pools(with: .read).compactMap { answers[$0.configuration.name] }
  }

  /// Every dials plugin's answer to `request`: one symbol for each of its ``ReadRequest/dials``;
  /// the shadows' only when the request asks for them (``ReadRequest/shadows``).
  public func dialAnswers(_ request: ReadRequest) async throws(ErrorReply) -> [EngineAnswer] {
    let calls = await fanOut(role: .dials, where: { Self.asks($0, request) }) { pool in
      await pool.call(.read(request))
    }
    return try answers(calls, role: .dials)
  }

  /// Every identify plugin's candidates for `request`, in the order of the configuration; the
  /// vote is the caller's (`IdentifyVote`).
  ///
  /// References go to plugins without their images; a plugin that has not seen one lists it as
  /// missing and is asked again with those images attached: the request's own, else those
  /// `referenceImages` gives for their SHA-256s (the host's store, whose references come bare).
  public func identifyAnswers(
    _ request: IdentifyRequest,
    referenceImages: @escaping @Sendable ([String]) async -> [String: Image] = { _ in [:] }
  ) async throws(ErrorReply) -> [PluginIdentification] {
    // Stripped once for every plugin, and only when some reference carries its image: the
    // store's come bare, 10,000 of them at every identify.
    var bare = request
    if request.references.contains(where: { !$0.image.data.isEmpty }) {
      bare.references = request.references.map { reference in
        var reference = reference
        reference.image.data = []
        return reference
      }
    }
    let calls = await fanOut(role: .identify) { [bare] pool in
      await Self.identify(request, bare: bare, with: pool, referenceImages: referenceImages).map {
        .success($0.candidates)
      }
    }
    return try answers(calls, role: .identify)
  }

  /// How many reference images one identify call carries at most. A plugin learns each (a
  /// keypoint plugin takes about 20 ms a photo), and every call must fit the plugin's timeout: the
  /// first identify after registering 1,000 meters would not, in one call.
  static let referencesPerCall = 48

  /// One identify plugin's conversation: `bare` (the request with its references' images
  /// dropped), then again with the images it asks for, ``referencesPerCall`` at a time, until it
  /// lacks none or stops making progress (a pool may route each call to another instance).
  private static func identify(
    _ request: IdentifyRequest, bare: IdentifyRequest, with pool: PluginPool,
    referenceImages: @Sendable ([String]) async -> [String: Image]
  ) async -> PluginCall<PluginCandidates> {
    var call = await pool.call(.identify(bare))
    var milliseconds = call.milliseconds
    var lacking = request.references.count + 1
    let rounds = request.references.count / referencesPerCall + 3
    for _ in 0..<rounds {
      guard case .success(let answer) = call.outcome, !answer.missingReferences.isEmpty,
        answer.missingReferences.count < lacking
      else {
        break
      }
      lacking = answer.missingReferences.count
      let batch = Set(answer.missingReferences.prefix(referencesPerCall))
      let unsent = request.references.filter { batch.contains($0.sha256) && $0.image.data.isEmpty }.map(\.sha256)
      let fetched = unsent.isEmpty ? [:] : await referenceImages(unsent)
      var asked = bare
      asked.references = zip(bare.references, request.references).map { bare, full in
        guard batch.contains(bare.sha256) else { return bare }
        guard full.image.data.isEmpty, let image = fetched[full.sha256] else { return full }
        var filled = full
        filled.image = image
        return filled
      }
      call = await pool.call(.identify(asked))
      milliseconds += call.milliseconds
    }
    call.milliseconds = milliseconds
    return call
  }

  /// Whether `plugin` is asked `request`: a voting plugin always; a shadow when the request asks
  /// for the shadows (``ReadRequest/shadows``) and is no survey read, which is compared and
  /// mostly dropped.
  static func asks(_ plugin: PluginConfiguration, _ request: ReadRequest) -> Bool {
    plugin.mode != .shadow || (request.shadows && !request.survey)
  }

  /// One read plugin's conversation: the request with bare examples, then once more with the
  /// crops of those it lacks.
  private static func read(
    _ request: ReadRequest, with pool: PluginPool, exampleCrops: @Sendable ([String]) async -> [Example]
  ) async -> PluginCall<EngineReading> {
    var call = await pool.call(.read(request))
    guard case .success(let reading) = call.outcome, !reading.missingExamples.isEmpty else {
      return call
    }
    let milliseconds = call.milliseconds
    let full = Dictionary(
      await exampleCrops(reading.missingExamples).map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
    var asked = request
    asked.examples = request.examples.map { full[$0.key] ?? $0 }
    call = await pool.call(.read(asked))
    call.milliseconds += milliseconds
    return call
  }

  private func answers<Value>(
    _ calls: [(PluginConfiguration, PluginCall<Value>)], role: Role
  ) throws(ErrorReply) -> [PluginAnswer<Value>] {
    guard !calls.isEmpty else {
      throw ErrorReply(
        .noPlugins,
        "no enabled plugin has the role '\(role)' (or takes a share of this request); add one to plugins.json")
    }
    let answers = calls.map { configuration, call in Self.answer(call, of: configuration) }
    // A photo every plugin refused as an image is a bad request, not an unknown meter or a blank.
    let refusals = answers.compactMap { answer in
      if case .failure(let error) = answer.outcome, error.code == .badImage { error } else { nil }
    }
    if let first = refusals.first, refusals.count == answers.count {
      throw ErrorReply(.badImage, "every plugin refused the photo: \(first.message)", plugin: first.plugin)
    }
    return answers
  }

  private static func answer<Value>(_ call: PluginCall<Value>, of configuration: PluginConfiguration)
    -> PluginAnswer<Value>
  {
    PluginAnswer(
      plugin: configuration.name, version: call.version, outcome: call.outcome, milliseconds: call.milliseconds,
      voted: configuration.mode == .vote)
  }
}
