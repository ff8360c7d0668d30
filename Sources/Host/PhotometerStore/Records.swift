import Foundation
import GRDB

/// Rows of the `meter` table.
struct MeterRow: Codable, FetchableRecord, MutablePersistableRecord {
  static let databaseTableName = "meter"

  var id: Int64?
  var name: String
  var kind: String
  var unit: String
  var createdAtMs: Int64
  var roiX: Int?
  var roiY: Int?
  var roiWidth: Int?
  var roiHeight: Int?
  var digits: Int
  var decimals: Int
  var countsUp: Bool
  var maxRatePerHour: Double?
  var minValue: Double?
  var maxValue: Double?
  var notes: String
  var extended: Bool

  mutating func didInsert(_ inserted: InsertionSuccess) {
    id = inserted.rowID
  }
}

/// Rows of the `meterDial` table: a meter's pointer dials, coarsest first (`position`).
struct MeterDialRow: Codable, FetchableRecord, MutablePersistableRecord {
  static let databaseTableName = "meterDial"

  var id: Int64?
  var meterId: Int64
  var position: Int
  var x: Int
  var y: Int
  var width: Int
  var height: Int
  var factor: Double
  var counterClockwise: Bool

  mutating func didInsert(_ inserted: InsertionSuccess) {
    id = inserted.rowID
  }
}

/// Rows of the `referencePhoto` table: the photos themselves, so one file is a whole backup.
struct ReferencePhotoRow: Codable, FetchableRecord, MutablePersistableRecord {
  static let databaseTableName = "referencePhoto"

  var id: Int64?
  var meterId: Int64
  var sha256: String
  /// `Data`, not `[UInt8]`: GRDB stores `Data` as a BLOB, but encodes an array as JSON text.
  var data: Data
  var width: Int
  var height: Int
  var addedAtMs: Int64

  mutating func didInsert(_ inserted: InsertionSuccess) {
    id = inserted.rowID
  }
}

/// Rows of the `reading` table.
struct ReadingRow: Codable, FetchableRecord, MutablePersistableRecord {
  static let databaseTableName = "reading"

  var id: Int64?
  var meterId: Int64
  var valueText: String
  var value: Double
  var unit: String
  var takenAtMs: Int64
  var recordedAtMs: Int64
  var source: String
  var confidence: Double?
  /// `Data` for a BLOB, as in ``ReferencePhotoRow/data``.
  var crop: Data?
  var verified: Bool
  /// For OCR readings, the voted value as first stored (``valueText`` may be corrected later).
  var votedValueText: String?
  /// A typed value the counting checks refused and `force` stored anyway.
  var forced: Bool

  /// Every column but `crop` (which then decodes as `nil`), for lists that do not show crops.
  static let columnsWithoutCrop: [Column] = [
    Column("id"), Column("meterId"), Column("valueText"), Column("value"), Column("unit"), Column("takenAtMs"),
    Column("recordedAtMs"), Column("source"), Column("confidence"), Column("verified"), Column("votedValueText"),
    Column("forced"),
  ]

  mutating func didInsert(_ inserted: InsertionSuccess) {
    id = inserted.rowID
  }
}

/// Rows of the `engineAnswer` table: each engine's answer for an OCR reading, so that engines can
/// be compared against the readings the user confirmed.
struct EngineAnswerRow: Codable, FetchableRecord, MutablePersistableRecord {
  static let databaseTableName = "engineAnswer"

  var id: Int64?
  var readingId: Int64
  var engine: String
  var version: String
  var text: String?
  var confidence: Double?
  var milliseconds: Double
  var voted: Bool
  var error: String?

  mutating func didInsert(_ inserted: InsertionSuccess) {
    id = inserted.rowID
  }
}

enum Schema {
  /// The migrations, from the first version on; never edit one that has shipped, add another.
  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1: meters, reference photos, readings, engine answers") { db in
      try db.create(table: "meter") { table in
        table.autoIncrementedPrimaryKey("id")
        table.column("name", .text).notNull().unique().collate(.nocase)
        table.column("kind", .text).notNull()
        table.column("unit", .text).notNull()
        table.column("createdAtMs", .integer).notNull()
        table.column("roiX", .integer)
        table.column("roiY", .integer)
        table.column("roiWidth", .integer)
        table.column("roiHeight", .integer)
        table.column("digits", .integer).notNull().defaults(to: 0)
        table.column("decimals", .integer).notNull().defaults(to: 0)
        table.column("countsUp", .boolean).notNull()
        table.column("maxRatePerHour", .double)
        table.column("minValue", .double)
        table.column("maxValue", .double)
        table.column("notes", .text).notNull().defaults(to: "")
      }
      try db.create(table: "referencePhoto") { table in
        table.autoIncrementedPrimaryKey("id")
        table.belongsTo("meter", onDelete: .cascade).notNull()
        table.column("sha256", .text).notNull()
        table.column("data", .blob).notNull()
        table.column("width", .integer).notNull()
        table.column("height", .integer).notNull()
        table.column("addedAtMs", .integer).notNull()
        table.uniqueKey(["meterId", "sha256"])
      }
      try db.create(table: "reading") { table in
        table.autoIncrementedPrimaryKey("id")
        table.belongsTo("meter", onDelete: .restrict).notNull()
        table.column("valueText", .text).notNull()
        table.column("value", .double).notNull()
        table.column("unit", .text).notNull()
        table.column("takenAtMs", .integer).notNull()
        table.column("recordedAtMs", .integer).notNull()
        table.column("source", .text).notNull().check { ["ocr", "manual", "corrected"].contains($0) }
        table.column("confidence", .double)
        table.column("crop", .blob)
        table.column("verified", .boolean).notNull().defaults(to: false)
      }
      try db.create(index: "readingByMeterAndTime", on: "reading", columns: ["meterId", "takenAtMs"])
      try db.create(table: "engineAnswer") { table in
        table.autoIncrementedPrimaryKey("id")
        table.belongsTo("reading", onDelete: .cascade).notNull()
        table.column("engine", .text).notNull()
        table.column("version", .text).notNull()
        table.column("text", .text)
        table.column("confidence", .double)
        table.column("milliseconds", .double).notNull()
        table.column("voted", .boolean).notNull()
        table.column("error", .text)
      }
    }
    migrator.registerMigration("v2: the voted value of OCR readings, kept through corrections") { db in
      try db.alter(table: "reading") { table in
        table.add(column: "votedValueText", .text)
      }
      // Readings corrected before v2 lost their voted value; the others still show it.
      try db.execute(sql: "UPDATE reading SET votedValueText = valueText WHERE source = 'ocr'")
    }
    migrator.registerMigration("v3: typed readings stored past the counting checks are flagged") { db in
      try db.alter(table: "reading") { table in
        table.add(column: "forced", .boolean).notNull().defaults(to: false)
      }
    }
    migrator.registerMigration("v4: pointer dials of meters") { db in
      try db.create(table: "meterDial") { table in
        table.autoIncrementedPrimaryKey("id")
        table.belongsTo("meter", onDelete: .cascade).notNull()
        table.column("position", .integer).notNull()
        table.column("x", .integer).notNull()
        table.column("y", .integer).notNull()
        table.column("width", .integer).notNull()
        table.column("height", .integer).notNull()
        table.column("factor", .double).notNull()
        table.column("counterClockwise", .boolean).notNull()
        table.uniqueKey(["meterId", "position"])
      }
    }
    migrator.registerMigration("v5: counters whose last wheel's roll is read as a decimal") { db in
      try db.alter(table: "meter") { table in
        table.add(column: "extended", .boolean).notNull().defaults(to: false)
      }
    }
    return migrator
  }
}
