import Foundation
import GRDB
import PhotometerDigest
import PhotometerProtocol

/// Every meter (photos included) and reading as one CSV text, and back.
///
/// One record a line, `meter` records first. Times are Unix milliseconds, numbers are written so
/// that they read back bit for bit, photos and crops are base64, each OCR reading's engine answers
/// are a JSON array; so exporting what an import loaded gives the same text again.
extension MeterStore {
  static let transferHeader = [
    "record", "meter", "kind", "unit", "created_at", "roi", "digits", "decimals", "counts_up", "max_rate_per_hour",
    "range", "notes", "photos", "value", "taken_at", "recorded_at", "source", "confidence", "verified", "crop",
    "engines", "voted_value", "forced", "dials", "extended",
  ]

  /// The headers of exports from before `extended`, `dials`, `forced` and `voted_value`, still read.
  static let olderTransferHeaders = (1...4).map { Array(transferHeader.dropLast($0)) }

  /// The whole store as CSV, with how many meters and readings it holds.
  public func exportCSV() async throws(StoreError) -> (csv: String, meters: Int, readings: Int) {
    try await read { db in
      var text = CSV.line(Self.transferHeader)
      let meters = try MeterRow.order(Column("id")).fetchAll(db)
      for meter in meters {
        let photos = try ReferencePhotoRow.filter(Column("meterId") == meter.id).order(Column("id")).fetchAll(db)
        text += CSV.line(Self.fields(meter, photos: photos, dials: try Self.dials(ofMeter: meter.id, db: db)))
      }
      var readings = 0
      for meter in meters {
        for reading in try ReadingRow.filter(Column("meterId") == meter.id).order(Column("takenAtMs"), Column("id"))
          .fetchAll(db)
        {
          let engines = try EngineAnswerRow.filter(Column("readingId") == reading.id).order(Column("id")).fetchAll(db)
          text += CSV.line(try Self.fields(reading, meter: meter.name, engines: engines))
          readings += 1
        }
      }
      return (text, meters.count, readings)
    }
  }

  /// Loads an export into this store, which must have none of its meters; all or nothing.
  public func importCSV(_ text: String) async throws(StoreError) -> (meters: Int, readings: Int) {
    let records: [[String]]
    do {
      records = try CSV.parse(text)
    } catch {
      throw .invalid(error.description)
    }
    guard let header = records.first, header == Self.transferHeader || Self.olderTransferHeaders.contains(header) else {
      throw .invalid("the CSV does not start with Photometer's export header")
    }
    return try await write { db in
      var meterIDs: [String: Int64] = [:]
      var readings = 0
      for (index, fields) in records.dropFirst().enumerated() {
        let line = index + 2
        guard fields.count == header.count else {
          throw StoreError.invalid("CSV line \(line) has \(fields.count) fields, not \(header.count)")
        }
        let record = Dictionary(uniqueKeysWithValues: zip(header, fields))
        do {
          switch record["record"] {
          case "meter":
            let (id, name) = try Self.importMeter(record, line: line, db: db)
            meterIDs[MeterName.key(name)] = id
          case "reading":
            guard let meterID = meterIDs[MeterName.key(record["meter", default: ""])] else {
              throw StoreError.invalid(
                "CSV line \(line): reading of meter '\(record["meter", default: ""])' before its meter record")
            }
            try Self.importReading(record, meterID: meterID, line: line, db: db)
            readings += 1
          default:
            throw StoreError.invalid("CSV line \(line): record must be 'meter' or 'reading'")
          }
        } catch let error as StoreError {
          throw Self.onLine(line, error)
        }
      }
      return (meterIDs.count, readings)
    }
  }

  // MARK: Writing

  private static func fields(_ meter: MeterRow, photos: [ReferencePhotoRow], dials: [Dial]) -> [String] {
    let roi = [meter.roiX, meter.roiY, meter.roiWidth, meter.roiHeight].compactMap { $0 }
    let range = [meter.minValue, meter.maxValue].compactMap { $0 }
    return [
      "meter", meter.name, meter.kind, meter.unit, "\(meter.createdAtMs)", roi.map(String.init).joined(separator: " "),
      "\(meter.digits)", "\(meter.decimals)", "\(meter.countsUp)", meter.maxRatePerHour.map { "\($0)" } ?? "",
      range.map { "\($0)" }.joined(separator: " "), meter.notes,
      photos.map { $0.data.base64EncodedString() }.joined(separator: " "), "", "", "", "", "", "", "", "", "", "",
      dials.map(\.text).joined(separator: " "), meter.extended ? "true" : "",
    ]
  }

  private static func fields(_ reading: ReadingRow, meter: String, engines: [EngineAnswerRow]) throws -> [String] {
    [
      "reading", meter, "", reading.unit, "", "", "", "", "", "", "", "", "", reading.valueText, "\(reading.takenAtMs)",
      "\(reading.recordedAtMs)", reading.source, reading.confidence.map { "\($0)" } ?? "", "\(reading.verified)",
      reading.crop.map { $0.base64EncodedString() } ?? "", try engineJSON(engines), reading.votedValueText ?? "",
      reading.forced ? "true" : "", "", "",
    ]
  }

  private static func engineJSON(_ engines: [EngineAnswerRow]) throws -> String {
    guard !engines.isEmpty else { return "" }
    let objects: [[String: Any]] = engines.map { engine in
      var object: [String: Any] = [
        "engine": engine.engine, "version": engine.version, "milliseconds": engine.milliseconds, "voted": engine.voted,
      ]
      object["text"] = engine.text
      object["confidence"] = engine.confidence
      object["error"] = engine.error
      return object
    }
    let data = try JSONSerialization.data(withJSONObject: objects, options: [.sortedKeys, .withoutEscapingSlashes])
    return String(decoding: data, as: UTF8.self)
  }

  /// `error` naming the CSV line it comes from (a unit, a value or a photo's error does not).
  private static func onLine(_ line: Int, _ error: StoreError) -> StoreError {
    let prefix = "CSV line \(line): "
    switch error {
    case .invalid(let reason) where !reason.hasPrefix("CSV line"): return .invalid(prefix + reason)
    case .badImage(let reason) where !reason.hasPrefix("CSV line"): return .badImage(prefix + reason)
    default: return error
    }
  }

  // MARK: Reading

  private static func importMeter(_ record: [String: String], line: Int, db: Database) throws -> (Int64, String) {
    let name: String
    do {
      name = try MeterName.checked(record["meter", default: ""])
    } catch {
      throw StoreError.invalid("CSV line \(line): \(error)")
    }
    guard try MeterName.meterID(name, db: db) == nil else {
      throw StoreError.invalid("CSV line \(line): meter '\(name)' already exists; import into a store without it")
    }
    guard let kind = MeterKind(rawValue: record["kind", default: ""]) else {
      throw StoreError.invalid("CSV line \(line): '\(record["kind", default: ""])' is not a meter kind")
    }
    let roi = try numbers(record["roi", default: ""], count: 4, field: "roi", line: line).map { Int($0) }
    let range = try numbers(record["range", default: ""], count: 2, field: "range", line: line)
    var row = MeterRow(
      id: nil, name: name, kind: kind.rawValue, unit: try Units.normalize(record["unit", default: ""], for: kind),
      createdAtMs: try integer(record["created_at"], field: "created_at", line: line), roiX: roi.first,
      roiY: roi.dropFirst().first, roiWidth: roi.dropFirst(2).first, roiHeight: roi.dropFirst(3).first,
      digits: Int(try integer(record["digits"], field: "digits", line: line)),
      decimals: Int(try integer(record["decimals"], field: "decimals", line: line)),
      countsUp: record["counts_up"] == "true", maxRatePerHour: Double(record["max_rate_per_hour", default: ""]),
      minValue: range.first, maxValue: range.last, notes: record["notes", default: ""],
      extended: record["extended"] == "true")
    try row.insert(db)
    for encoded in record["photos", default: ""].split(separator: " ") {
      guard let data = Data(base64Encoded: String(encoded)) else {
        throw StoreError.invalid("CSV line \(line): a photo is not base64")
      }
      let photo = try inspect(Image(data: [UInt8](data)))
      var photoRow = ReferencePhotoRow(
        id: nil, meterId: row.id!, sha256: SHA256Digest.hex(photo.data), data: Data(photo.data),
        width: photo.info.width,
        height: photo.info.height, addedAtMs: row.createdAtMs)
      try photoRow.insert(db)
    }
    do {
      let dials = try record["dials", default: ""].split(separator: " ").map { (text) throws(DialSyntaxError) in
        try Dial(parsing: String(text))
      }
      try checkDials(Meter(name: name, kind: kind, decimals: row.decimals, dials: dials))
      try replaceDials(of: row.id!, with: dials, db: db)
    } catch let error as DialSyntaxError {
      throw StoreError.invalid("CSV line \(line): \(error)")
    }
    return (row.id!, name)
  }

  private static func importReading(_ record: [String: String], meterID: Int64, line: Int, db: Database) throws {
    guard let source = ReadingSource(rawValue: record["source", default: ""]) else {
      throw StoreError.invalid("CSV line \(line): '\(record["source", default: ""])' is not a reading source")
    }
    let meter = try MeterRow.fetchOne(db, key: meterID)!
    let kind = MeterKind(rawValue: meter.kind) ?? .other
    let (text, numeric) = try ValueText.parse(record["value", default: ""], kind: kind)
    var row = ReadingRow(
      id: nil, meterId: meterID, valueText: text, value: numeric,
      unit: try Units.normalize(record["unit", default: ""], for: kind),
      takenAtMs: try time(record["taken_at"], field: "taken_at", line: line),
      recordedAtMs: try time(record["recorded_at"], field: "recorded_at", line: line), source: source.rawValue,
      confidence: Double(record["confidence", default: ""]),
      crop: record["crop"].flatMap { Data(base64Encoded: $0) }.flatMap { $0.isEmpty ? nil : $0 },
      verified: record["verified"] == "true",
      // Exports from before v2 lack it; an uncorrected OCR reading's value is still its vote.
      votedValueText: record["voted_value"].map { $0.isEmpty ? nil : $0 }
        ?? (source == .ocr ? text : nil),
      forced: record["forced"] == "true")
    try row.insert(db)
    let engines = record["engines", default: ""]
    guard !engines.isEmpty else { return }
    guard let objects = try JSONSerialization.jsonObject(with: Data(engines.utf8)) as? [[String: Any]] else {
      throw StoreError.invalid("CSV line \(line): engines is not a JSON array")
    }
    for object in objects {
      var engine = EngineAnswerRow(
        id: nil, readingId: row.id!, engine: object["engine"] as? String ?? "",
        version: object["version"] as? String ?? "",
        text: object["text"] as? String, confidence: object["confidence"] as? Double,
        milliseconds: object["milliseconds"] as? Double ?? 0, voted: object["voted"] as? Bool ?? true,
        error: object["error"] as? String)
      try engine.insert(db)
    }
  }

  private static func integer(_ text: String?, field: String, line: Int) throws -> Int64 {
    guard let value = text.flatMap({ Int64($0) }) else {
      throw StoreError.invalid("CSV line \(line): \(field) '\(text ?? "")' is not a whole number")
    }
    return value
  }

  /// A reading's time as addReading takes it: in the years 1 to 9999, not in the future.
  private static func time(_ text: String?, field: String, line: Int) throws -> Int64 {
    try checkedReadingTime(integer(text, field: field, line: line), now: now, what: "CSV line \(line): \(field)")
  }

  /// Space-separated numbers: none, or exactly `count`.
  private static func numbers(_ text: String, count: Int, field: String, line: Int) throws -> [Double] {
    let values = text.split(separator: " ").compactMap { Double($0) }
    guard text.isEmpty || values.count == count else {
      throw StoreError.invalid("CSV line \(line): \(field) must be \(count) numbers separated by spaces")
    }
    return values
  }
}
