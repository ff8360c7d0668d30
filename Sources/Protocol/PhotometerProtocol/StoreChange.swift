/// A request that changes the meter store.
public enum StoreChange: Hashable, Sendable {
  case addMeter(AddMeterRequest)
  case editMeter(EditMeterRequest)
  case removeMeter(name: String, withReadings: Bool)
  case addReading(AddReadingRequest)
  case confirmReading(id: Int64, value: String)
  case deleteReading(id: Int64)
  case importData(csv: String)

  /// The change, or `nil` for any other message.
  public init?(_ message: Message) {
    switch message {
    case .addMeter(let request): self = .addMeter(request)
    case .editMeter(let request): self = .editMeter(request)
    case .removeMeter(let name, let withReadings): self = .removeMeter(name: name, withReadings: withReadings)
    case .addReading(let request): self = .addReading(request)
    case .confirmReading(let id, let value): self = .confirmReading(id: id, value: value)
    case .deleteReading(let id): self = .deleteReading(id: id)
    case .importData(let csv): self = .importData(csv: csv)
    default: return nil
    }
  }
}
