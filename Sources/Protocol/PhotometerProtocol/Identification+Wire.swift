import CPhotometerProtocol

extension Reference {
  init(_ reference: Photometer__V1__Reference) throws(WireError) {
    self.init(
      meter: String(protobuf: reference.meter),
      image: Image(reference.image),
      sha256: String(protobuf: reference.sha256),
      roi: Rect.decode(reference.roi)
    )
  }

  func encode(in arena: Arena) -> UnsafeMutablePointer<Photometer__V1__Reference> {
    arena.message(photometer__v1__reference__init) {
      $0.meter = arena.string(meter)
      $0.image = image.encode(in: arena)
      $0.sha256 = arena.string(sha256)
      $0.roi = Rect.encode(roi, in: arena)
    }
  }
}

extension IdentifyRequest {
  init(_ request: Photometer__V1__IdentifyRequest) throws(WireError) {
    self.init(
      image: Image(request.image),
      references: try repeated(request.n_references, request.references, Reference.init),
      referenceSet: String(protobuf: request.reference_set)
    )
  }

  func encode(in arena: Arena) -> UnsafeMutablePointer<Photometer__V1__IdentifyRequest> {
    arena.message(photometer__v1__identify_request__init) {
      $0.image = image.encode(in: arena)
      ($0.n_references, $0.references) = arena.array(references) { $0.encode(in: arena) }
      $0.reference_set = arena.string(referenceSet)
    }
  }
}

extension Candidate {
  init(_ candidate: Photometer__V1__Candidate) throws(WireError) {
    self.init(
      meter: String(protobuf: candidate.meter),
      score: candidate.score,
      confidence: candidate.confidence,
      outline: try points(candidate.n_outline, candidate.outline),
      homography: (0..<candidate.n_homography).map { candidate.homography[$0] },
      colour: String(protobuf: candidate.colour)
    )
  }

  func encode(in arena: Arena) -> UnsafeMutablePointer<Photometer__V1__Candidate> {
    arena.message(photometer__v1__candidate__init) {
      $0.meter = arena.string(meter)
      $0.score = score
      $0.confidence = confidence
      ($0.n_outline, $0.outline) = encodePoints(outline, in: arena)
      ($0.n_homography, $0.homography) = arena.values(homography)
      $0.colour = arena.string(colour)
    }
  }
}

extension PluginCandidates {
  init(_ list: Photometer__V1__PluginCandidates) throws(WireError) {
    self.init(
      try repeated(list.n_candidates, list.candidates, Candidate.init),
      missingReferences: (0..<list.n_missing_references).map { String(protobuf: list.missing_references[$0]) },
      unknownReferenceSet: list.unknown_reference_set != 0
    )
  }

  func encode(in arena: Arena) -> UnsafeMutablePointer<Photometer__V1__PluginCandidates> {
    arena.message(photometer__v1__plugin_candidates__init) {
      ($0.n_candidates, $0.candidates) = arena.array(candidates) { $0.encode(in: arena) }
      ($0.n_missing_references, $0.missing_references) = arena.values(
        missingReferences.map { Optional(arena.string($0)) })
      $0.unknown_reference_set = unknownReferenceSet ? 1 : 0
    }
  }
}

private func points(_ count: Int, _ points: UnsafeMutablePointer<UnsafeMutablePointer<Photometer__V1__Point>?>?)
  throws(WireError) -> [Point]
{
  try repeated(count, points) { point throws(WireError) in Point(x: point.x, y: point.y) }
}

private func encodePoints(_ points: [Point], in arena: Arena)
  -> (Int, UnsafeMutablePointer<UnsafeMutablePointer<Photometer__V1__Point>?>?)
{
  arena.array(points) { point in
    arena.message(photometer__v1__point__init) {
      $0.x = point.x
      $0.y = point.y
    }
  }
}

extension PluginIdentification {
  init(_ identification: Photometer__V1__PluginIdentification) throws(WireError) {
    let outcome: Result<[Candidate], ErrorReply>
    if let error = identification.error {
      outcome = .failure(ErrorReply(error.pointee))
    } else {
      outcome = .success(try repeated(identification.n_candidates, identification.candidates, Candidate.init))
    }
    self.init(
      plugin: String(protobuf: identification.plugin),
      version: String(protobuf: identification.version),
      outcome: outcome,
      milliseconds: identification.milliseconds,
      voted: identification.voted != 0
    )
  }

  func encode(in arena: Arena) -> UnsafeMutablePointer<Photometer__V1__PluginIdentification> {
    arena.message(photometer__v1__plugin_identification__init) {
      $0.plugin = arena.string(plugin)
      $0.version = arena.string(version)
      switch outcome {
      case .success(let candidates):
        ($0.n_candidates, $0.candidates) = arena.array(candidates) { $0.encode(in: arena) }
      case .failure(let error):
        $0.error = error.encode(in: arena)
      }
      $0.milliseconds = milliseconds
      $0.voted = voted ? 1 : 0
    }
  }
}

extension IdentifyResult {
  init(_ result: Photometer__V1__IdentifyResult) throws(WireError) {
    self.init(
      meter: String(protobuf: result.meter),
      confidence: result.confidence,
      candidates: try repeated(result.n_candidates, result.candidates, Candidate.init),
      plugins: try repeated(result.n_plugins, result.plugins, PluginIdentification.init),
      summary: String(protobuf: result.summary),
      outline: try points(result.n_outline, result.outline),
      homography: (0..<result.n_homography).map { result.homography[$0] },
      colour: String(protobuf: result.colour)
    )
  }

  func encode(in arena: Arena) -> UnsafeMutablePointer<Photometer__V1__IdentifyResult> {
    arena.message(photometer__v1__identify_result__init) {
      $0.meter = arena.string(meter)
      $0.confidence = confidence
      ($0.n_candidates, $0.candidates) = arena.array(candidates) { $0.encode(in: arena) }
      ($0.n_plugins, $0.plugins) = arena.array(plugins) { $0.encode(in: arena) }
      $0.summary = arena.string(summary)
      ($0.n_outline, $0.outline) = encodePoints(outline, in: arena)
      ($0.n_homography, $0.homography) = arena.values(homography)
      $0.colour = arena.string(colour)
    }
  }
}

extension PluginStatus {
  init(_ status: Photometer__V1__PluginStatus) throws(WireError) {
    var pids = (0..<status.n_pids).map { status.pids[$0] }
    if pids.isEmpty && status.pid > 0 {
      pids = [status.pid]
    }
    self.init(
      name: String(protobuf: status.name),
      state: PluginState(rawValue: String(protobuf: status.state)),
      pids: pids,
      roles: Role.decode(status.n_roles, status.roles),
      version: String(protobuf: status.version),
      mode: String(protobuf: status.mode),
      instances: status.instances,
      restarts: status.restarts,
      requests: status.requests,
      errors: status.errors,
      timeouts: status.timeouts,
      queued: status.queued,
      medianMilliseconds: status.median_milliseconds,
      p95Milliseconds: status.p95_milliseconds,
      reason: String(protobuf: status.reason)
    )
  }

  func encode(in arena: Arena) -> UnsafeMutablePointer<Photometer__V1__PluginStatus> {
    arena.message(photometer__v1__plugin_status__init) {
      $0.name = arena.string(name)
      $0.state = arena.string(state.rawValue)
      $0.pid = pids.first ?? 0
      ($0.n_pids, $0.pids) = arena.values(pids)
      ($0.n_roles, $0.roles) = Role.encode(roles, in: arena)
      $0.version = arena.string(version)
      $0.mode = arena.string(mode)
      $0.instances = instances
      $0.restarts = restarts
      $0.requests = requests
      $0.errors = errors
      $0.timeouts = timeouts
      $0.queued = queued
      $0.median_milliseconds = medianMilliseconds
      $0.p95_milliseconds = p95Milliseconds
      $0.reason = arena.string(reason)
    }
  }
}
