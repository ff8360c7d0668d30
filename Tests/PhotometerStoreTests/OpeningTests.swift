import Foundation
import GRDB
import PhotometerProtocol
import PhotometerStore
import TestSupport
import Testing

/// Opening a database: what an open may write, and what it must refuse.
@Suite struct OpeningTests {
  let path =
    Scratch.folder.appendingPathComponent("photometer-\(UUID().uuidString)/meters.sqlite")
    .path

  /// A database holding one meter, every connection to it closed.
  func makeDatabase() async throws {
    let store = try MeterStore(path: path)
    let photo = Image(data: TestImages.png(1, width: 320, height: 240), name: "water.png")
    _ = try await store.addMeter(Meter(name: "Water", kind: .water), references: [photo])
  }

  /// The bytes of the file and of its write-ahead log, if one holds anything (a read-only
  /// connection to a WAL database may leave an empty one).
  func contents() throws -> [String: Data] {
    var files: [String: Data] = [:]
    for file in [path, path + "-wal"] where FileManager.default.fileExists(atPath: file) {
      let data = try Data(contentsOf: URL(fileURLWithPath: file))
      if !data.isEmpty { files[file] = data }
    }
    return files
  }

  @Test func aDatabaseANewerVersionMigratedIsRefusedUnchanged() async throws {
    try await makeDatabase()
    do {
      let queue = try DatabaseQueue(path: path)
      try await queue.write { db in
        try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from a newer version')")
      }
      try queue.close()
    }
    let before = try contents()
    do {
      _ = try MeterStore(path: path)
      Issue.record("a database with an unknown migration was opened")
    } catch {
      #expect(error == .newerSchema(path: path, migrations: ["v99: from a newer version"]))
      #expect(error.description.contains("newer Photometer"))
    }
    #expect(try contents() == before)
  }

  @Test func aDatabaseAnotherProgramHoldsTheWriteLockOfOpensForReading() async throws {
    try await makeDatabase()
    var configuration = Configuration()
    configuration.allowsUnsafeTransactions = true
    let holder = try DatabaseQueue(path: path, configuration: configuration)
    try await holder.write { db in try db.execute(sql: "PRAGMA journal_mode") }
    try holder.inDatabase { db in try db.execute(sql: "BEGIN IMMEDIATE; CREATE TABLE holder (x)") }
    let store = try MeterStore(path: path)
    #expect(try await store.meters().map(\.name) == ["Water"])
    try holder.inDatabase { db in try db.execute(sql: "ROLLBACK") }
    _ = try await store.addReading(AddReadingRequest(meter: "Water", value: "1", takenAt: 1))
    #expect(try await store.readings(ListReadingsRequest(meter: "Water")).count == 1)
  }

  @Test func aReadOnlyOpenWritesNothingAndRefusesChanges() async throws {
    try await makeDatabase()
    let before = try contents()
    let store = try MeterStore(path: path, access: .readOnly)
    #expect(store.isReadOnly)
    #expect(try await store.meters().map(\.name) == ["Water"])
    await #expect(throws: StoreError.readOnly) {
      try await store.addReading(AddReadingRequest(meter: "Water", value: "1", takenAt: 1))
    }
    #expect(try contents() == before)
  }

  @Test func aReadOnlyOpenOfNoFileCreatesItAsAnyOpenWould() async throws {
    let store = try MeterStore(path: path, access: .readOnly)
    #expect(!store.isReadOnly)
    #expect(try await store.meters().isEmpty)
    #expect(FileManager.default.fileExists(atPath: path))
  }

  @Test func aNewDatabaseIsMigratedAndThenCurrent() async throws {
    do {
      let store = try MeterStore(path: path)
      #expect(try await store.meters().isEmpty)
    }
    let queue = try DatabaseQueue(path: path)
    let applied = try await queue.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") }
    #expect(applied.count >= 2)
    #expect(applied.allSatisfy { $0.hasPrefix("v") })
  }
}
