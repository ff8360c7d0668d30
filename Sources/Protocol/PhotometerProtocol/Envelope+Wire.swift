import CPhotometerProtocol

extension Envelope {
  /// The protobuf encoding of this envelope, without a length prefix.
  public func serialized() -> [UInt8] {
    withPacked { size, pack in
      [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
        count = pack(buffer.baseAddress!)
      }
    }
  }

  /// The envelope as one frame: its length as a varint, then its protobuf encoding.
  public func framed() -> [UInt8] {
    withPacked { size, pack in
      let prefix = Varint.encode(UInt64(size))
      return [UInt8](unsafeUninitializedCapacity: prefix.count + size) { buffer, count in
        for (index, byte) in prefix.enumerated() {
          buffer[index] = byte
        }
        count = prefix.count + pack(buffer.baseAddress! + prefix.count)
      }
    }
  }

  /// Builds the C message and hands its packed size and a packing function to `body`.
  private func withPacked<R>(_ body: (Int, (UnsafeMutablePointer<UInt8>) -> Int) -> R) -> R {
    let arena = Arena()
    var envelope = Photometer__V1__Envelope()
    photometer__v1__envelope__init(&envelope)
    envelope.request_id = requestID
    message.fill(&envelope, arena: arena)
    return withUnsafePointer(to: &envelope) { pointer in
      let size = photometer__v1__envelope__get_packed_size(pointer)
      return body(size) { photometer__v1__envelope__pack(pointer, $0) }
    }
  }

  /// Decodes one frame's payload.
  ///
  /// - Throws: ``UndecodableFrame`` with the request id when one could be read, so that the
  ///   error reply can name the request it answers.
  public init(serialized bytes: [UInt8]) throws(UndecodableFrame) {
    let unpacked = bytes.withUnsafeBufferPointer { buffer in
      photometer__v1__envelope__unpack(nil, buffer.count, buffer.baseAddress)
    }
    guard let unpacked else {
      throw UndecodableFrame(requestID: 0, reason: .undecodable)
    }
    defer { photometer__v1__envelope__free_unpacked(unpacked, nil) }
    let requestID = unpacked.pointee.request_id
    do {
      try Self.checkKnownFields(unpacked)
      self.init(requestID: requestID, message: try Message(unpacked.pointee))
    } catch {
      throw UndecodableFrame(requestID: requestID, reason: error)
    }
  }

  private static func checkKnownFields(_ envelope: UnsafeMutablePointer<Photometer__V1__Envelope>) throws(WireError) {
    var fieldNumber: UInt32 = 0
    let holder = envelope.withMemoryRebound(to: ProtobufCMessage.self, capacity: 1) {
      photometer_first_unknown_field($0, &fieldNumber)
    }
    guard let holder else {
      return
    }
    let name = String(cString: holder)
    if name == "photometer.v1.Envelope" && envelope.pointee.body_case == PHOTOMETER__V1__ENVELOPE__BODY__NOT_SET {
      throw .unknownMessage(fieldNumber: fieldNumber)
    }
    throw .unknownField(message: name, fieldNumber: fieldNumber)
  }
}

extension Message {
  fileprivate init(_ envelope: Photometer__V1__Envelope) throws(WireError) {
    switch envelope.body_case {
    case PHOTOMETER__V1__ENVELOPE__BODY_HELLO:
      self = .hello(try Hello(envelope.hello.pointee))
    case PHOTOMETER__V1__ENVELOPE__BODY_ERROR:
      self = .error(ErrorReply(envelope.error.pointee))
    case PHOTOMETER__V1__ENVELOPE__BODY_PING:
      self = .ping(payload: [UInt8](protobuf: envelope.ping.pointee.payload))
    case PHOTOMETER__V1__ENVELOPE__BODY_PONG:
      self = .pong(payload: [UInt8](protobuf: envelope.pong.pointee.payload))
    case PHOTOMETER__V1__ENVELOPE__BODY_CANCEL:
      self = .cancel(requestID: envelope.cancel.pointee.request_id)
    case PHOTOMETER__V1__ENVELOPE__BODY_SHUTDOWN:
      self = .shutdown
    case PHOTOMETER__V1__ENVELOPE__BODY_SHUTDOWN_COMPLETE:
      self = .shutdownComplete
    case PHOTOMETER__V1__ENVELOPE__BODY_READ:
      self = .read(try ReadRequest(envelope.read.pointee))
    case PHOTOMETER__V1__ENVELOPE__BODY_IDENTIFY:
      self = .identify(try IdentifyRequest(envelope.identify.pointee))
    case PHOTOMETER__V1__ENVELOPE__BODY_LIST_PLUGINS:
      self = .listPlugins
    case PHOTOMETER__V1__ENVELOPE__BODY_RELOAD_PLUGINS:
      self = .reloadPlugins
    case PHOTOMETER__V1__ENVELOPE__BODY_PREVIEW_METER:
      let request = envelope.preview_meter.pointee
      self = .previewMeter(name: String(protobuf: request.name), photo: request.photo.map { Image($0) })
    case PHOTOMETER__V1__ENVELOPE__BODY_METER_PREVIEW:
      guard let image = envelope.meter_preview.pointee.image else { throw .invalid("MeterPreview has no image") }
      self = .meterPreview(Image(image))
    case PHOTOMETER__V1__ENVELOPE__BODY_READ_RESULT:
      self = .readResult(try ReadResult(envelope.read_result.pointee))
    case PHOTOMETER__V1__ENVELOPE__BODY_IDENTIFY_RESULT:
      self = .identifyResult(try IdentifyResult(envelope.identify_result.pointee))
    case PHOTOMETER__V1__ENVELOPE__BODY_PLUGIN_LIST:
      let list = envelope.plugin_list.pointee
      self = .pluginList(try repeated(list.n_plugins, list.plugins, PluginStatus.init))
    case PHOTOMETER__V1__ENVELOPE__BODY_ENGINE_READING:
      self = .engineReading(try EngineReading(envelope.engine_reading.pointee))
    case PHOTOMETER__V1__ENVELOPE__BODY_PLUGIN_CANDIDATES:
      self = .pluginCandidates(try PluginCandidates(envelope.plugin_candidates.pointee))
    default:
      if let message = try Message.storeMessage(envelope) {
        self = message
      } else if let message = try Message.reportMessage(envelope) {
        self = message
      } else {
        throw .unknownMessage(fieldNumber: nil)
      }
    }
  }

  fileprivate func fill(_ envelope: inout Photometer__V1__Envelope, arena: Arena) {
    switch self {
    case .hello(let hello):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_HELLO
      envelope.hello = hello.encode(in: arena)
    case .error(let error):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_ERROR
      envelope.error = error.encode(in: arena)
    case .ping(let payload):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_PING
      envelope.ping = arena.message(photometer__v1__ping__init) { $0.payload = arena.bytes(payload) }
    case .pong(let payload):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_PONG
      envelope.pong = arena.message(photometer__v1__pong__init) { $0.payload = arena.bytes(payload) }
    case .cancel(let requestID):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_CANCEL
      envelope.cancel = arena.message(photometer__v1__cancel__init) { $0.request_id = requestID }
    case .shutdown:
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_SHUTDOWN
      envelope.shutdown = arena.message(photometer__v1__shutdown__init) { _ in }
    case .shutdownComplete:
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_SHUTDOWN_COMPLETE
      envelope.shutdown_complete = arena.message(photometer__v1__shutdown_complete__init) { _ in }
    case .read(let request):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_READ
      envelope.read = request.encode(in: arena)
    case .identify(let request):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_IDENTIFY
      envelope.identify = request.encode(in: arena)
    case .listPlugins:
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_LIST_PLUGINS
      envelope.list_plugins = arena.message(photometer__v1__list_plugins__init) { _ in }
    case .reloadPlugins:
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_RELOAD_PLUGINS
      envelope.reload_plugins = arena.message(photometer__v1__reload_plugins__init) { _ in }
    case .previewMeter(let name, let photo):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_PREVIEW_METER
      envelope.preview_meter = arena.message(photometer__v1__preview_meter__init) {
        $0.name = arena.string(name)
        $0.photo = photo?.encode(in: arena)
      }
    case .meterPreview(let image):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_METER_PREVIEW
      envelope.meter_preview = arena.message(photometer__v1__meter_preview__init) {
        $0.image = image.encode(in: arena)
      }
    case .readResult(let result):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_READ_RESULT
      envelope.read_result = result.encode(in: arena)
    case .identifyResult(let result):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_IDENTIFY_RESULT
      envelope.identify_result = result.encode(in: arena)
    case .pluginList(let plugins):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_PLUGIN_LIST
      envelope.plugin_list = arena.message(photometer__v1__plugin_list__init) { list in
        (list.n_plugins, list.plugins) = arena.array(plugins) { $0.encode(in: arena) }
      }
    case .engineReading(let reading):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_ENGINE_READING
      envelope.engine_reading = reading.encode(in: arena)
    case .pluginCandidates(let candidates):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_PLUGIN_CANDIDATES
      envelope.plugin_candidates = candidates.encode(in: arena)
    case .addMeter, .getMeter, .listMeters, .editMeter, .removeMeter, .addReading, .confirmReading, .deleteReading,
      .getReading, .listReadings, .meterInfo, .meterList, .meterRemoved, .readingInfo, .readingList, .readingDeleted:
      let filled = fillStoreMessage(&envelope, arena: arena)
      assert(filled, "every store message has its encoding")
    case .getStats, .exportData, .importData, .renderChart, .stats, .exportedData, .importedData, .chart:
      let filled = fillReportMessage(&envelope, arena: arena)
      assert(filled, "every report message has its encoding")
    }
  }
}
