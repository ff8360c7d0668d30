/// What a client may send the host, as the host's receiving edge takes it: ``Message`` carries
/// both conversations and every reply on the wire, and `init?(_:)` is the one place the kinds a
/// client never sends are told apart, so the host's switches over these are checked whole by the
/// compiler.
public enum ClientMessage: Hashable, Sendable {
  case hello(Hello)
  case ping(payload: [UInt8])
  /// Asks the host to abandon the request with this id; it has no reply of its own.
  case cancel(requestID: UInt64)
  case shutdown
  /// A request that does work: the host answers each in a task of its own.
  case work(Work)

  /// The requests that do work.
  public enum Work: Hashable, Sendable {
    case read(ReadRequest)
    case identify(IdentifyRequest)
    case previewMeter(name: String, photo: Image?)
    case listPlugins
    case reloadPlugins
    case renderChart(StatsRequest, size: ChartSize, content: ChartContent)
    case query(StoreQuery)
    case change(StoreChange)
  }

  /// The client's message, or `nil` for a reply or a kind only the host sends a plugin.
  public init?(_ message: Message) {
    switch message {
    case .hello(let hello): self = .hello(hello)
    case .ping(let payload): self = .ping(payload: payload)
    case .cancel(let id): self = .cancel(requestID: id)
    case .shutdown: self = .shutdown
    case .read(let request): self = .work(.read(request))
    case .identify(let request): self = .work(.identify(request))
    case .previewMeter(let name, let photo): self = .work(.previewMeter(name: name, photo: photo))
    case .listPlugins: self = .work(.listPlugins)
    case .reloadPlugins: self = .work(.reloadPlugins)
    case .renderChart(let request, let size, let content):
      self = .work(.renderChart(request, size: size, content: content))
    case .addMeter, .editMeter, .removeMeter, .addReading, .confirmReading, .deleteReading, .importData:
      guard let change = StoreChange(message) else { return nil }
      self = .work(.change(change))
    case .getMeter, .listMeters, .getReading, .listReadings, .getStats, .exportData:
      guard let query = StoreQuery(message) else { return nil }
      self = .work(.query(query))
    case .error, .pong, .shutdownComplete, .readResult, .identifyResult, .pluginList, .meterPreview, .engineReading,
      .pluginCandidates, .meterInfo, .meterList, .meterRemoved, .readingInfo, .readingList, .readingDeleted, .stats,
      .exportedData, .importedData, .chart:
      return nil
    }
  }
}
