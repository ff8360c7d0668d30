import PhotometerProtocol

/// A request a client sends the host, with the kind of answer it gets: `client.send(.listMeters)`
/// is a `[Meter]`. Each request is paired with its reply here, once.
public typealias HostRequest<Response> = Request<ClientConversation, Response>

extension Request where Conversation == ClientConversation, Response == ReadResult {
  public static func read(_ request: ReadRequest) -> Self {
    Self(.read(request)) { if case .readResult(let result) = $0 { result } else { nil } }
  }
}

extension Request where Conversation == ClientConversation, Response == IdentifyResult {
  public static func identify(_ request: IdentifyRequest) -> Self {
    Self(.identify(request)) { if case .identifyResult(let result) = $0 { result } else { nil } }
  }
}

extension Request where Conversation == ClientConversation, Response == Image {
  /// A meter's digit window and dials drawn on its reference photo, or on `photo`, as PNG.
  public static func previewMeter(name: String, photo: Image? = nil) -> Self {
    Self(.previewMeter(name: name, photo: photo)) { if case .meterPreview(let image) = $0 { image } else { nil } }
  }
}

extension Request where Conversation == ClientConversation, Response == [PluginStatus] {
  public static var listPlugins: Self { Self(.listPlugins, answer: pluginList) }
  /// Reads the plugin configuration again.
  public static var reloadPlugins: Self { Self(.reloadPlugins, answer: pluginList) }

  private static func pluginList(_ reply: Message) -> [PluginStatus]? {
    if case .pluginList(let plugins) = reply { plugins } else { nil }
  }
}

extension Request where Conversation == ClientConversation, Response == Meter {
  public static func addMeter(_ request: AddMeterRequest) -> Self { Self(.addMeter(request), answer: meterInfo) }
  public static func getMeter(name: String, includePhotos: Bool) -> Self {
    Self(.getMeter(name: name, includePhotos: includePhotos), answer: meterInfo)
  }
  public static func editMeter(_ request: EditMeterRequest) -> Self { Self(.editMeter(request), answer: meterInfo) }

  private static func meterInfo(_ reply: Message) -> Meter? {
    if case .meterInfo(let meter) = reply { meter } else { nil }
  }
}

extension Request where Conversation == ClientConversation, Response == [Meter] {
  public static var listMeters: Self {
    Self(.listMeters) { if case .meterList(let meters) = $0 { meters } else { nil } }
  }
}

extension Request where Conversation == ClientConversation, Response == Int {
  /// Removes a meter; one with readings only when `withReadings`. The answer is how many
  /// readings went with it.
  public static func removeMeter(name: String, withReadings: Bool) -> Self {
    Self(.removeMeter(name: name, withReadings: withReadings)) {
      if case .meterRemoved(_, let readings) = $0 { readings } else { nil }
    }
  }
}

extension Request where Conversation == ClientConversation, Response == StoredReading {
  public static func addReading(_ request: AddReadingRequest) -> Self {
    Self(.addReading(request), answer: readingInfo)
  }
  /// The user's verification of a reading, or with a non-empty `value`, their correction.
  public static func confirmReading(id: Int64, value: String) -> Self {
    Self(.confirmReading(id: id, value: value), answer: readingInfo)
  }
  public static func getReading(id: Int64, withCrop: Bool) -> Self {
    Self(.getReading(id: id, withCrop: withCrop), answer: readingInfo)
  }

  private static func readingInfo(_ reply: Message) -> StoredReading? {
    if case .readingInfo(let reading) = reply { reading } else { nil }
  }
}

extension Request where Conversation == ClientConversation, Response == [StoredReading] {
  public static func listReadings(_ request: ListReadingsRequest) -> Self {
    Self(.listReadings(request)) { if case .readingList(let readings) = $0 { readings } else { nil } }
  }
}

extension Request where Conversation == ClientConversation, Response == Int64 {
  /// The answer is the deleted reading's id.
  public static func deleteReading(id: Int64) -> Self {
    Self(.deleteReading(id: id)) { if case .readingDeleted(let id) = $0 { id } else { nil } }
  }
}

extension Request where Conversation == ClientConversation, Response == Stats {
  public static func getStats(_ request: StatsRequest) -> Self {
    Self(.getStats(request)) { if case .stats(let stats) = $0 { stats } else { nil } }
  }
}

extension Request where Conversation == ClientConversation, Response == ExportedData {
  /// Every meter and reading as one CSV text.
  public static var exportData: Self {
    Self(.exportData) {
      if case .exportedData(let csv, let meters, let readings) = $0 {
        ExportedData(csv: csv, meters: meters, readings: readings)
      } else {
        nil
      }
    }
  }
}

extension Request where Conversation == ClientConversation, Response == ImportedData {
  /// Loads what ``exportData`` wrote.
  public static func importData(csv: String) -> Self {
    Self(.importData(csv: csv)) {
      if case .importedData(let meters, let readings) = $0 {
        ImportedData(meters: meters, readings: readings)
      } else {
        nil
      }
    }
  }
}

extension Request where Conversation == ClientConversation, Response == String {
  /// A chart of a meter's readings, or of its consumption per the request's period, as a
  /// standalone SVG document.
  public static func renderChart(_ request: StatsRequest, size: ChartSize, content: ChartContent = .automatic) -> Self {
    Self(.renderChart(request, size: size, content: content)) { if case .chart(let svg) = $0 { svg } else { nil } }
  }
}

/// The answer to ``HostRequest/exportData``.
public struct ExportedData: Sendable {
  public var csv: String
  public var meters: Int
  public var readings: Int
}

/// The answer to ``HostRequest/importData(csv:)``: what was loaded.
public struct ImportedData: Sendable {
  public var meters: Int
  public var readings: Int
}
