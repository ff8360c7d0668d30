import Logging
import PhotometerImages
import PhotometerProtocol
import PhotometerStore
import PluginSupervisor

extension HostServer {
  /// Handles one event from the client, on the channel's reader thread. Every event but the end
  /// of the input and a `Cancel` is answered, so it first takes a reply slot.
  func handle(_ event: FrameChannel.Event, replies: ReplyWriter) {
    if event.expectsReply {
      replies.takeSlot {
        logger.warning(
          "the client is not taking its replies; pausing its input",
          metadata: ["in-flight": "\(Self.maxRequestsInFlight)"])
      }
    }
    switch event {
    case .envelope(let envelope):
      record(.request, envelope)
      handle(envelope, replies: replies)
    case .undecodable(let frame, let bytes):
      logger.error(
        "undecodable frame from the client", metadata: ["reason": "\(frame.reason)", "bytes": "\(bytes.hexDump)"])
      reply(frame.requestID, .error(ErrorReply(frame.reason.code, frame.reason.description)), replies: replies)
    case .broken(let error, let bytes):
      logger.error("the client's stream broke; closing", metadata: ["reason": "\(error)", "bytes": "\(bytes.hexDump)"])
      let code: ErrorCode = if case .tooLarge = error { .frameTooLarge } else { .invalidRequest }
      reply(0, .error(ErrorReply(code, error.description)), replies: replies)
      finish(status: 1, after: nil, replies: replies)
    case .closed:
      logger.debug("the client closed its output")
      finish(status: 0, after: nil, replies: replies)
    }
  }

  private func handle(_ envelope: Envelope, replies: ReplyWriter) {
    let id = envelope.requestID
    let message = ClientMessage(envelope.message)
    // A Cancel has no reply (and took no reply slot), before the handshake too.
    if case .cancel(let target) = message {
      state.withLock { $0.inFlight[target] }?.cancel()
      return
    }
    guard state.withLock({ $0.handshakeDone }) else {
      handshake(envelope, replies: replies)
      return
    }
    if state.withLock({ $0.shuttingDown }), message != .shutdown {
      reply(
        id, .error(ErrorReply(.shuttingDown, "the host is shutting down and takes no new requests")), replies: replies)
      return
    }
    switch message {
    case .ping(let payload):
      reply(id, .pong(payload: payload), replies: replies)
    case .shutdown:
      state.withLock { $0.shuttingDown = true }
      finish(status: 0, after: id, replies: replies)
    case .hello:
      reply(id, .error(ErrorReply(.invalidRequest, "the handshake is already done")), replies: replies)
    case .cancel:
      break  // Taken above.
    case .work(let work):
      start(id, work, replies: replies)
    case nil:
      let error = ErrorReply(.unknownMessage, "the host does not take \(envelope.message.kind) from a client")
      reply(id, .error(error), replies: replies)
    }
  }

  private func handshake(_ envelope: Envelope, replies: ReplyWriter) {
    guard case .hello(let client) = envelope.message else {
      let error = ErrorReply(.handshakeRequired, "send Hello first, not \(envelope.message.kind)")
      reply(envelope.requestID, .error(error), replies: replies)
      return
    }
    let own = hello
    if let refusal = own.refusal(ofPeer: client) {
      logger.error("refusing the client", metadata: ["reason": "\(refusal.message)"])
      reply(envelope.requestID, .error(refusal), replies: replies)
      finish(status: 1, after: nil, replies: replies)
      return
    }
    logger.debug("client connected", metadata: ["client": "\(client.name) \(client.softwareVersion)"])
    state.withLock {
      $0.handshakeDone = true
      $0.clientVersion = client.version
    }
    reply(envelope.requestID, .hello(own), replies: replies)
  }

  /// Runs a request in a task of its own and answers it when it is done.
  private func start(_ id: UInt64, _ work: ClientMessage.Work, replies: ReplyWriter) {
    if state.withLock({ $0.inFlight[id] != nil }) {
      reply(
        id, .error(ErrorReply(.duplicateRequestID, "request \(id) is still in flight; use a new id")), replies: replies)
      return
    }
    state.withLock { state in
      state.inFlight[id] = Task {
        let answer = await self.answer(work)
        let message = Task.isCancelled ? .error(ErrorReply(.cancelled, "the request was cancelled")) : answer
        self.reply(id, message, replies: replies)
        self.state.withLock { _ = $0.inFlight.removeValue(forKey: id) }
      }
    }
  }

  private func answer(_ work: ClientMessage.Work) async -> Message {
    do throws(ErrorReply) {
      switch work {
      case .read(var request):
        let photo = try checkImage(request.image)
        // A client older than the question gets the shadows' answers with every read, as it did.
        if !state.withLock({ $0.clientVersion }).includes(.askedShadows) {
          request.shadows = true
        }
        return .readResult(
          try await answered { () throws(PipelineError) in try await reading.read(request, photo: photo) })
      case .identify(let request):
        try checkImage(request.image)
        for reference in request.references {
          try checkImage(reference.image, role: "the reference photo of \(reference.meter)")
        }
        return .identifyResult(
          try await answered { () throws(PipelineError) in try await reading.identify.identify(request) })
      case .previewMeter(let name, let photo):
        if let photo {
          try checkImage(photo)
        }
        return .meterPreview(
          try await answered { () throws(PipelineError) in try await preview.preview(of: name, on: photo) })
      case .listPlugins:
        return .pluginList(await plugins.statuses())
      case .reloadPlugins:
        return .pluginList(try await plugins.reload())
      case .renderChart(let request, let size, let content):
        return .chart(
          svg: try await answered { () throws(StoreError) in try await chart(request, size: size, content: content) })
      case .query(let query):
        return try await answered { () throws(StoreError) in try await store.answer(query) }
      case .change(let change):
        return try await answer(change)
      }
    } catch {
      return .error(error)
    }
  }

  /// A pipeline's answer, its failure as the client's reply: the one place pipeline errors
  /// become replies.
  private func answered<Value>(_ body: () async throws(PipelineError) -> Value) async throws(ErrorReply) -> Value {
    do {
      return try await body()
    } catch {
      throw ErrorReply(error)
    }
  }

  /// The store's answer, its failure as the client's reply: the one place store errors become
  /// replies.
  func answered<Value>(_ body: () async throws(StoreError) -> Value) async throws(ErrorReply) -> Value {
    do {
      return try await body()
    } catch {
      throw ErrorReply(error)
    }
  }

  /// Checks an image's header against the host's limits before any plugin decodes it.
  @discardableResult
  private func checkImage(_ image: Image, role: String = "the image") throws(ErrorReply) -> ImageInfo {
    do {
      return try ImageInfo.inspect(image.data, limits: imageLimits)
    } catch {
      let name = image.name.isEmpty ? role : "\(role) \(image.name)"
      throw ErrorReply(.badImage, "\(name): \(error)")
    }
  }

  func reply(_ id: UInt64, _ message: Message, replies: ReplyWriter) {
    let envelope = Envelope(requestID: id, message: message)
    record(.reply, envelope)
    replies.send(envelope)
  }

  private func record(_ direction: Recorded.Direction, _ envelope: Envelope) {
    recorder?.record(direction, envelope) { reason in
      logger.error("could not record an envelope", metadata: ["reason": "\(reason)"])
    }
  }

  /// Ends the conversation once the requests in flight are answered; answers `Shutdown` with
  /// `ShutdownComplete` first when `shutdownID` is set.
  private func finish(status: Int32, after shutdownID: UInt64?, replies: ReplyWriter) {
    let tasks = state.withLock { state in
      state.shuttingDown = true
      return Array(state.inFlight.values)
    }
    Task {
      for task in tasks {
        await task.value
      }
      if let shutdownID {
        self.reply(shutdownID, .shutdownComplete, replies: replies)
      }
      self.state.withLock { state in
        state.finished?.resume(returning: status)
        state.finished = nil
      }
    }
  }
}

extension FrameChannel.Event {
  /// Whether the host answers this event: all but the end of the input and a `Cancel`.
  fileprivate var expectsReply: Bool {
    switch self {
    case .closed: false
    case .envelope(let envelope): if case .cancel = envelope.message { false } else { true }
    case .undecodable, .broken: true
    }
  }
}
