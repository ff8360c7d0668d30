import PhotometerProtocol

extension HostClient {
  /// Sends `message` and takes its reply apart with `payload`.
  ///
  /// - Throws: the host's ``ErrorReply``, or ``Failure/unexpectedReply(request:reply:)`` when
  ///   the reply is of another kind.
  public func call<T>(_ message: Message, _ payload: (Message) -> T?) async throws -> T {
    let reply = try await request(message)
    guard let value = payload(reply) else {
      throw Failure.unexpectedReply(request: message.kind, reply: reply.kind)
    }
    return value
  }
}

extension Message {
  public var pluginList: [PluginStatus]? {
    if case .pluginList(let plugins) = self { plugins } else { nil }
  }

  public var meterInfo: Meter? {
    if case .meterInfo(let meter) = self { meter } else { nil }
  }

  public var meterList: [Meter]? {
    if case .meterList(let meters) = self { meters } else { nil }
  }

  /// How many readings went with the removed meter.
  public var meterRemoved: Int? {
    if case .meterRemoved(_, let readings) = self { readings } else { nil }
  }

  public var readingInfo: StoredReading? {
    if case .readingInfo(let reading) = self { reading } else { nil }
  }

  public var readingList: [StoredReading]? {
    if case .readingList(let readings) = self { readings } else { nil }
  }

  public var readingDeleted: Int64? {
    if case .readingDeleted(let id) = self { id } else { nil }
  }
}

extension Message {
  public var stats: Stats? {
    if case .stats(let stats) = self { stats } else { nil }
  }

  public var exportedData: (csv: String, meters: Int, readings: Int)? {
    if case .exportedData(let csv, let meters, let readings) = self { (csv, meters, readings) } else { nil }
  }

  public var importedData: (meters: Int, readings: Int)? {
    if case .importedData(let meters, let readings) = self { (meters, readings) } else { nil }
  }

  public var chartSVG: String? {
    if case .chart(let svg) = self { svg } else { nil }
  }
}
