/// One frame's content: a message and the id of the request it is or answers.
public struct Envelope: Hashable, Sendable {
  /// Chosen by the side that sends a request; a reply carries the id of its request.
  public var requestID: UInt64
  public var message: Message

  public init(requestID: UInt64, message: Message) {
    self.requestID = requestID
    self.message = message
  }
}

/// Every kind of message, in both conversations (client with host, host with plugin).
public enum Message: Hashable, Sendable {
  case hello(Hello)
  case error(ErrorReply)
  case ping(payload: [UInt8])
  case pong(payload: [UInt8])
  /// Asks the receiver to abandon the request with this id; it has no reply of its own.
  case cancel(requestID: UInt64)
  case shutdown
  case shutdownComplete
  case read(ReadRequest)
  case identify(IdentifyRequest)
  case listPlugins
  /// Asks the host to read its plugin configuration again; answered with ``pluginList(_:)``.
  case reloadPlugins
  /// A meter's digit window and dials drawn on its reference photo, or on `photo` (a later photo,
  /// through the identify homography); answered with ``meterPreview(_:)``.
  case previewMeter(name: String, photo: Image?)
  case addMeter(AddMeterRequest)
  case getMeter(name: String, includePhotos: Bool)
  case listMeters
  case editMeter(EditMeterRequest)
  /// Removes a meter; one with readings only when `withReadings`.
  case removeMeter(name: String, withReadings: Bool)
  case addReading(AddReadingRequest)
  /// The user's verification of a reading, or with a `value`, their correction.
  case confirmReading(id: Int64, value: String)
  case deleteReading(id: Int64)
  /// One stored reading by its id, its crop too when `withCrop`.
  case getReading(id: Int64, withCrop: Bool)
  case listReadings(ListReadingsRequest)
  case getStats(StatsRequest)
  /// Every meter and reading as one CSV text.
  case exportData
  /// Loads what ``exportData`` wrote.
  case importData(csv: String)
  /// A chart of a meter's readings, or of its consumption per the request's
  /// ``StatsRequest/period``.
  case renderChart(StatsRequest, size: ChartSize, content: ChartContent = .automatic)
  case readResult(ReadResult)
  case identifyResult(IdentifyResult)
  case pluginList([PluginStatus])
  /// The drawing ``previewMeter(name:photo:)`` asked for, as PNG.
  case meterPreview(Image)
  case engineReading(EngineReading)
  case pluginCandidates(PluginCandidates)
  case meterInfo(Meter)
  case meterList([Meter])
  case meterRemoved(name: String, readingsRemoved: Int)
  case readingInfo(StoredReading)
  case readingList([StoredReading])
  case readingDeleted(id: Int64)
  case stats(Stats)
  case exportedData(csv: String, meters: Int, readings: Int)
  case importedData(meters: Int, readings: Int)
  /// A standalone SVG document.
  case chart(svg: String)

  /// The message's name in the schema, for logs and error messages.
  public var kind: String {
    switch self {
    case .hello: "Hello"
    case .error: "Error"
    case .ping: "Ping"
    case .pong: "Pong"
    case .cancel: "Cancel"
    case .shutdown: "Shutdown"
    case .shutdownComplete: "ShutdownComplete"
    case .read: "ReadRequest"
    case .identify: "IdentifyRequest"
    case .listPlugins: "ListPlugins"
    case .reloadPlugins: "ReloadPlugins"
    case .previewMeter: "PreviewMeter"
    case .meterPreview: "MeterPreview"
    case .addMeter: "AddMeter"
    case .getMeter: "GetMeter"
    case .listMeters: "ListMeters"
    case .editMeter: "EditMeter"
    case .removeMeter: "RemoveMeter"
    case .addReading: "AddReading"
    case .confirmReading: "ConfirmReading"
    case .deleteReading: "DeleteReading"
    case .getReading: "GetReading"
    case .listReadings: "ListReadings"
    case .getStats: "GetStats"
    case .exportData: "ExportData"
    case .importData: "ImportData"
    case .renderChart: "RenderChart"
    case .stats: "Stats"
    case .exportedData: "ExportedData"
    case .importedData: "ImportedData"
    case .chart: "Chart"
    case .meterInfo: "MeterInfo"
    case .meterList: "MeterList"
    case .meterRemoved: "MeterRemoved"
    case .readingInfo: "ReadingInfo"
    case .readingList: "ReadingList"
    case .readingDeleted: "ReadingDeleted"
    case .readResult: "ReadResult"
    case .identifyResult: "IdentifyResult"
    case .pluginList: "PluginList"
    case .engineReading: "EngineReading"
    case .pluginCandidates: "PluginCandidates"
    }
  }
}
