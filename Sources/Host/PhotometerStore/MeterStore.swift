import Foundation
import GRDB
import PhotometerProtocol

/// Meters, their reference photos and readings, in one SQLite file.
///
/// The file holds the whole state (photos included), so a copy of it is a complete backup. It is
/// opened in WAL mode with foreign keys on and a busy timeout, so that two hosts started by two
/// apps can share it: every change is one short transaction.
public final class MeterStore: Sendable {
  /// How long a write waits for another process's transaction before failing.
  public static let busyTimeout: TimeInterval = 5
  /// How far in the future a reading's time may be (clocks differ a little).
  public static let futureTolerance: Int64 = 5 * 60 * 1000

  let database: DatabasePool

  /// Opens (creating it and its folder if needed) the database at `path` and migrates it.
  public init(path: String) throws(StoreError) {
    do {
      try FileManager.default.createDirectory(
        at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
      var configuration = Configuration()
      configuration.busyMode = .timeout(Self.busyTimeout)
      configuration.foreignKeysEnabled = true
      database = try DatabasePool(path: path, configuration: configuration)
      try Schema.migrator.migrate(database)
    } catch {
      throw .database("cannot open \(path): \(error)")
    }
  }

  /// Runs a write transaction on GRDB's writer queue, not on the caller's thread, so that a slow
  /// disk or a busy file does not hold a cooperative thread; database failures become
  /// ``StoreError``. A cancelled task's transaction is rolled back.
  func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
    do {
      return try await database.write(body)
    } catch {
      throw Self.storeError(error)
    }
  }

  func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
    do {
      return try await database.read(body)
    } catch {
      throw Self.storeError(error)
    }
  }

  private static func storeError(_ error: any Error) -> StoreError {
    if let error = error as? StoreError {
      return error
    }
    return .database("\(error)")
  }

  /// The whole file's `PRAGMA integrity_check`: "ok" when sound.
  public func integrityCheck() async throws(StoreError) -> String {
    try await read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "" }
  }

  /// The current time in Unix milliseconds.
  static var now: Int64 {
    milliseconds(Date())
  }
}
