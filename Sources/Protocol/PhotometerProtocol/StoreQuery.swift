/// A request that only reads the meter store: the host answers it, and so does the CLI from the
/// database opened for reading only.
public enum StoreQuery: Hashable, Sendable {
  case getMeter(name: String, includePhotos: Bool)
  case listMeters
  case getReading(id: Int64, withCrop: Bool)
  case listReadings(ListReadingsRequest)
  case getStats(StatsRequest)
  case exportData

  /// The query, or `nil` for any other message.
  public init?(_ message: Message) {
    switch message {
    case .getMeter(let name, let includePhotos): self = .getMeter(name: name, includePhotos: includePhotos)
    case .listMeters: self = .listMeters
    case .getReading(let id, let withCrop): self = .getReading(id: id, withCrop: withCrop)
    case .listReadings(let request): self = .listReadings(request)
    case .getStats(let request): self = .getStats(request)
    case .exportData: self = .exportData
    default: return nil
    }
  }
}
