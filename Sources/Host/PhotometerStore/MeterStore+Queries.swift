import Foundation
import PhotometerProtocol

extension MeterStore {
  /// `$XDG_DATA_HOME/photometer/photometer.sqlite`, by default
  /// `~/.local/share/photometer/photometer.sqlite`.
  public static var defaultPath: String {
    let dataHome = ProcessInfo.processInfo.environment["XDG_DATA_HOME"] ?? "\(NSHomeDirectory())/.local/share"
    return "\(dataHome)/photometer/photometer.sqlite"
  }

  /// The answer to a request that only reads the store (meters, readings, statistics, the
  /// export). The host answers these, and so does the CLI in its own process, with the database
  /// opened for reading only.
  public func answer(_ query: StoreQuery) async throws(StoreError) -> Message {
    switch query {
    case .getMeter(let name, let includePhotos):
      return .meterInfo(try await meter(named: name, includePhotos: includePhotos))
    case .listMeters:
      return .meterList(try await meters())
    case .getReading(let id, let withCrop):
      return .readingInfo(try await reading(id: id, withCrop: withCrop))
    case .listReadings(let request):
      return .readingList(try await readings(request))
    case .getStats(let request):
      return .stats(try await stats(request))
    case .exportData:
      let export = try await exportCSV()
      return .exportedData(csv: export.csv, meters: export.meters, readings: export.readings)
    }
  }
}

extension ErrorReply {
  /// The reply for a store failure.
  public init(_ error: StoreError) {
    let code: ErrorCode =
      switch error {
      case .meterNotFound, .readingNotFound: .notFound
      case .duplicateMeter, .meterHasReadings, .invalid: .invalidRequest
      case .badImage: .badImage
      case .database, .newerSchema, .readOnly, .diskFull: .storeFailed
      }
    self.init(code, error.description)
  }
}
