import Foundation
import GRDB
import PhotometerImages
import PhotometerProtocol

extension MeterStore {
  /// Stores a reading: checked (known meter, a number, a unit of its kind, within the meter's
  /// range, not in the future), with its time from the request, else the photo's EXIF, else now.
  public func addReading(_ request: AddReadingRequest) async throws(StoreError) -> StoredReading {
    let photoTime = try request.photo.flatMap { (photo) throws(StoreError) in
      try Self.inspect(photo).info.exifDateTime.flatMap(Self.unixMilliseconds)
    }
    if !request.crop.isEmpty {
      // The crop is shown and learnt from later: it must be an image within the limits.
      _ = try Self.inspect(Image(data: request.crop, name: "the reading's crop"))
    }
    let now = Self.now
    let takenAt = try Self.checkedReadingTime(request.takenAt ?? photoTime ?? now, now: now)
    return try await write { db in
      let meter = try Self.row(named: request.meter, db: db)
      let kind = MeterKind(rawValue: meter.kind) ?? .other
      let unit = try Units.normalize(request.unit.isEmpty ? meter.unit : request.unit, for: kind)
      let (text, numeric) = try ValueText.parse(request.value, kind: kind)
      try Self.checkRange(numeric, unit: unit, meter: meter, kind: kind)
      var forced = false
      if request.source == .manual, meter.countsUp {
        do {
          try Self.checkCounting(text, numeric, unit: unit, at: takenAt, meter: meter, kind: kind, db: db)
        } catch StoreError.invalid where request.force {
          forced = true
        }
      }
      var row = ReadingRow(
        id: nil, meterId: meter.id!, valueText: text, value: numeric, unit: unit, takenAtMs: takenAt,
        recordedAtMs: now, source: request.source.rawValue, confidence: request.confidence,
        crop: request.crop.isEmpty ? nil : Data(request.crop), verified: false,
        votedValueText: request.source == .ocr ? text : nil, forced: forced)
      try row.insert(db)
      for answer in request.engines {
        var engine = EngineAnswerRow(
          id: nil, readingId: row.id!, engine: answer.plugin, version: answer.version, text: answer.value?.text,
          confidence: answer.value?.confidence, milliseconds: answer.milliseconds, voted: answer.voted,
          error: answer.outcome.failureMessage)
        try engine.insert(db)
      }
      return try Self.reading(row, meter: meter, db: db)
    }
  }

  /// Marks a reading verified by the user; with a `value`, corrects it too (an OCR reading then
  /// becomes `corrected`).
  public func confirmReading(id: Int64, value: String?) async throws(StoreError) -> StoredReading {
    try await write { db in
      guard var row = try ReadingRow.fetchOne(db, key: id) else {
        throw StoreError.readingNotFound(id)
      }
      let meter = try MeterRow.fetchOne(db, key: row.meterId)!
      if let value, !value.isEmpty {
        let kind = MeterKind(rawValue: meter.kind) ?? .other
        let (text, numeric) = try ValueText.parse(value, kind: kind)
        try Self.checkRange(numeric, unit: row.unit, meter: meter, kind: kind)
        if text != row.valueText {
          (row.valueText, row.value) = (text, numeric)
          row.source = row.source == ReadingSource.manual.rawValue ? row.source : ReadingSource.corrected.rawValue
        }
      }
      row.verified = true
      try row.update(db)
      return try Self.reading(row, meter: meter, db: db)
    }
  }

  /// The reading `id`, its crop only when `withCrop` (the BLOB is not read otherwise).
  public func reading(id: Int64, withCrop: Bool) async throws(StoreError) -> StoredReading {
    try await read { db in
      let query = withCrop ? ReadingRow.all() : ReadingRow.select(ReadingRow.columnsWithoutCrop)
      guard let row = try query.filter(key: id).fetchOne(db) else {
        throw StoreError.readingNotFound(id)
      }
      return try Self.reading(row, meter: try MeterRow.fetchOne(db, key: row.meterId)!, db: db)
    }
  }

  public func deleteReading(id: Int64) async throws(StoreError) {
    try await write { db in
      guard try ReadingRow.deleteOne(db, key: id) else {
        throw StoreError.readingNotFound(id)
      }
    }
  }

  /// A meter's readings taken between `from` and `to` (inclusive, Unix milliseconds), oldest
  /// first, shown in `unit` when given.
  public func readings(_ request: ListReadingsRequest) async throws(StoreError) -> [StoredReading] {
    try await read { db in
      let meter = try Self.row(named: request.meter, db: db)
      let kind = MeterKind(rawValue: meter.kind) ?? .other
      let unit = request.unit.isEmpty ? nil : try Units.normalize(request.unit, for: kind)
      var query = ReadingRow.filter(Column("meterId") == meter.id)
      if let from = request.from { query = query.filter(Column("takenAtMs") >= from) }
      if let to = request.to { query = query.filter(Column("takenAtMs") <= to) }
      if !request.withCrops {
        // The crop BLOBs are not even read from the file.
        query = query.select(ReadingRow.columnsWithoutCrop)
      }
      var rows: [ReadingRow]
      if let limit = request.limit, limit > 0 {
        rows = try query.order(Column("takenAtMs").desc, Column("id").desc).limit(limit).fetchAll(db)
        rows.reverse()
      } else {
        rows = try query.order(Column("takenAtMs"), Column("id")).fetchAll(db)
      }
      return try rows.map { row in
        var reading = try Self.reading(row, meter: meter, db: db)
        if let unit, unit != row.unit {
          reading.displayValue = Units.convert(
            text: row.valueText, numeric: row.value, from: row.unit, to: unit, kind: kind)
          reading.displayUnit = unit
        }
        return reading
      }
    }
  }

  /// A meter's latest reading (by the time it was taken), fetched alone: what plausibility checks
  /// compare a new value with. Listing the whole history for it made every read load every stored
  /// crop, so reads grew slower and the host bigger with each reading saved.
  public func latestReading(of meter: String) async throws(StoreError) -> StoredReading? {
    try await read { db in try Self.latestReading(of: try Self.row(named: meter, db: db), db: db) }
  }

  /// A meter's latest confirmed or corrected readings that kept their crop, newest first: what
  /// read engines that learn a meter's own digits learn from. With `crops` false, the crops are
  /// left empty (and not read from the file).
  public func examples(of meter: String, limit: Int, crops: Bool = false) async throws(StoreError) -> [Example] {
    try await read { db in
      try Self.examples(of: try Self.row(named: meter, db: db), limit: limit, crops: crops, db: db)
    }
  }

  /// What a read of the meter needs from the store, in one read: the meter, its latest
  /// ``examples(of:limit:crops:)`` without their crops, and its ``latestReading(of:)``.
  public func readingContext(of meter: String, examples limit: Int) async throws(StoreError) -> ReadingContext {
    try await read { db in
      let row = try Self.row(named: meter, db: db)
      return ReadingContext(
        meter: try Self.meter(row, db: db, includePhotos: false),
        examples: try Self.examples(of: row, limit: limit, crops: false, db: db),
        latest: try Self.latestReading(of: row, db: db))
    }
  }

  /// The latest reading without its crop and engine answers: a read checks its value against it
  /// and needs no more (a crop is tens of kilobytes, loaded on every read for nothing).
  private static func latestReading(of meterRow: MeterRow, db: Database) throws -> StoredReading? {
    guard
      let row = try Row.fetchOne(
        db,
        sql: """
          SELECT id, valueText, value, unit, takenAtMs, recordedAtMs, source, confidence, verified,
            votedValueText, forced
          FROM reading WHERE meterId = ? ORDER BY takenAtMs DESC, id DESC LIMIT 1
          """,
        arguments: [meterRow.id])
    else {
      return nil
    }
    var reading = StoredReading(
      id: row["id"], meter: meterRow.name, value: row["valueText"], numeric: row["value"], unit: row["unit"],
      takenAt: row["takenAtMs"], recordedAt: row["recordedAtMs"],
      source: ReadingSource(rawValue: row["source"]) ?? .manual, confidence: row["confidence"],
      verified: row["verified"], crop: [], engines: [])
    reading.votedValue = row["votedValueText"] ?? ""
    reading.forced = row["forced"]
    return reading
  }

  private static func examples(of meterRow: MeterRow, limit: Int, crops: Bool, db: Database) throws -> [Example] {
    let rows = try Row.fetchAll(
      db,
      sql: """
        SELECT id, valueText, \(crops ? "crop" : "NULL") AS crop FROM reading
        WHERE meterId = ? AND verified AND crop IS NOT NULL
        ORDER BY takenAtMs DESC, id DESC LIMIT ?
        """,
      arguments: [meterRow.id, limit])
    return rows.map { row in
      let id: Int64 = row["id"]
      let value: String = row["valueText"]
      let crop: Data? = row["crop"]
      return Example(key: exampleKey(id: id, value: value), value: value, crop: crop.map { [UInt8]($0) } ?? [])
    }
  }

  /// An example's key: the reading and its (possibly corrected) value.
  public static func exampleKey(id: Int64, value: String) -> String {
    "\(id):\(value)"
  }

  // MARK: Helpers

  static func reading(_ row: ReadingRow, meter: MeterRow, db: Database) throws -> StoredReading {
    let engines = try EngineAnswerRow.filter(Column("readingId") == row.id).order(Column("id")).fetchAll(db).map {
      engine in
      EngineAnswer(
        plugin: engine.engine, version: engine.version,
        outcome: engine.text.map { .success(EngineReading(text: $0, confidence: engine.confidence ?? 0)) }
          ?? .failure(ErrorReply(.pluginFailed, engine.error ?? "no answer", plugin: engine.engine)),
        milliseconds: engine.milliseconds, voted: engine.voted)
    }
    var reading = StoredReading(
      id: row.id!, meter: meter.name, value: row.valueText, numeric: row.value, unit: row.unit,
      takenAt: row.takenAtMs, recordedAt: row.recordedAtMs, source: ReadingSource(rawValue: row.source) ?? .manual,
      confidence: row.confidence, verified: row.verified, crop: row.crop.map { [UInt8]($0) } ?? [], engines: engines)
    reading.votedValue = row.votedValueText ?? ""
    reading.forced = row.forced
    return reading
  }

  /// Checks a value against the meter's range, or else its kind's physical range.
  private static func checkRange(_ value: Double, unit: String, meter: MeterRow, kind: MeterKind) throws {
    let inMeterUnit = Units.convert(value, from: unit, to: meter.unit, kind: kind)
    if let low = meter.minValue, let high = meter.maxValue, !(low...high).contains(inMeterUnit) {
      throw StoreError.invalid(
        "\(value) \(unit) is outside meter '\(meter.name)''s range \(low)...\(high) \(meter.unit)")
    }
    if let physical = kind.physicalRange,
      !physical.contains(Units.convert(value, from: unit, to: kind.canonicalUnit, kind: kind))
    {
      throw StoreError.invalid(
        "\(value) \(unit) is outside the physical range of a \(kind.rawValue) reading "
          + "(\(physical.lowerBound)...\(physical.upperBound) \(kind.canonicalUnit))")
    }
  }

  /// Refuses a value a counting meter cannot show at `time`: below the reading before it, above
  /// the one after it, or risen from the one before faster than the meter's maximum rate. The
  /// same rules the host's plausibility check applies to OCR readings, for a value typed by hand.
  private static func checkCounting(
    _ text: String, _ value: Double, unit: String, at time: Int64, meter: MeterRow, kind: MeterKind, db: Database
  ) throws {
    let readings = ReadingRow.select(ReadingRow.columnsWithoutCrop).filter(Column("meterId") == meter.id!)
    let before = try readings.filter(Column("takenAtMs") <= time)
      .order(Column("takenAtMs").desc, Column("id").desc).fetchOne(db)
    let after = try readings.filter(Column("takenAtMs") > time).order(Column("takenAtMs"), Column("id")).fetchOne(db)
    let inUnit = { (row: ReadingRow) in Units.convert(row.value, from: row.unit, to: unit, kind: kind) }
    let tolerance = 1e-9 * max(abs(value), 1)
    let fix = "check the value and its time, or store it anyway with force (photometer reading add --force)"
    if let before, value < inUnit(before) - tolerance {
      throw StoreError.invalid(
        "\(text) \(unit) is below the reading before it (\(before.valueText) \(before.unit) at "
          + "\(iso8601(before.takenAtMs))), and meter '\(meter.name)' counts up: \(fix)")
    }
    if let after, value > inUnit(after) + tolerance {
      throw StoreError.invalid(
        "\(text) \(unit) is above the reading after it (\(after.valueText) \(after.unit) at "
          + "\(iso8601(after.takenAtMs))), and meter '\(meter.name)' counts up: \(fix)")
    }
    if let before, let rate = meter.maxRatePerHour, rate > 0 {
      let hours = Double(time - before.takenAtMs) / 3_600_000
      let rise =
        Units.convert(value, from: unit, to: meter.unit, kind: kind)
        - Units.convert(before.value, from: before.unit, to: meter.unit, kind: kind)
      if rise > rate * hours + tolerance {
        throw StoreError.invalid(
          "\(text) \(unit) rose \(rise) \(meter.unit) in \(String(format: "%.2f", hours)) h since the reading "
            + "before it (\(before.valueText) \(before.unit)), more than meter '\(meter.name)''s maximum of "
            + "\(rate) \(meter.unit) an hour: \(fix)")
      }
    }
  }

  /// An EXIF time as Unix milliseconds: with its stated offset, else in this host's time zone.
  static func unixMilliseconds(_ exif: ExifDateTime) -> Int64? {
    var components = DateComponents(
      year: exif.year, month: exif.month, day: exif.day, hour: exif.hour, minute: exif.minute, second: exif.second)
    components.timeZone = exif.utcOffsetSeconds.flatMap(TimeZone.init(secondsFromGMT:)) ?? .current
    return Calendar(identifier: .gregorian).date(from: components).map(milliseconds)
  }

  static func iso8601(_ milliseconds: Int64) -> String {
    ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
  }
}

extension Result where Failure == ErrorReply {
  var failureMessage: String? {
    if case .failure(let error) = self { "\(error.code): \(error.message)" } else { nil }
  }
}
