import Foundation
import GRDB
import PhotometerProtocol
import Synchronization

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
  /// The times a reading may have, in Unix milliseconds: the years 1 to 9999 (UTC), which the
  /// calendar, ISO 8601 and the charts all handle, and far from Int64's ends.
  public static let readingTimes: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999

  /// `time` when a reading may have it: within ``readingTimes`` and not in the future.
  static func checkedReadingTime(_ time: Int64, now: Int64, what: String = "the reading's time") throws(StoreError)
    -> Int64
  {
    guard readingTimes.contains(time) else {
      throw .invalid("\(what) \(time) ms is outside the years 1 to 9999")
    }
    guard time <= now + futureTolerance else {
      throw .invalid("\(what) \(iso8601(time)) is in the future")
    }
    return time
  }

  let database: any DatabaseWriter
  /// Writes this store has made, counted when each is over: with SQLite's `data_version`, which
  /// counts other connections' commits, it tells when a kept answer may be stale.
  let writes = Atomic<Int>(0)
  /// Every meter's references without their photos, as last read, with the version they were
  /// read at and their reference-set name (``household()``).
  let keptReferences = Mutex<(version: StoreVersion, references: [Reference], referenceSet: String)?>(nil)
  /// Whether the file was opened for reading only (it lies on a read-only file system, or
  /// ``Access/readOnly`` was asked for): every change fails with ``StoreError/readOnly``.
  public let isReadOnly: Bool

  /// What the opener will do with the database.
  public enum Access: Sendable {
    /// Read and change it; the open migrates it when needed.
    case readWrite
    /// Only read it: an existing file of the current schema is opened so that nothing, not even
    /// the open, writes to it (a damaged file stays as it was, another program's write lock does
    /// not matter). A missing file or an older schema is opened as ``readWrite``, since it must be
    /// created or migrated before it can be read.
    case readOnly
  }

  /// Opens (creating it and its folder if needed) the database at `path` and migrates it.
  ///
  /// A database whose schema is current is not migrated again. One that a newer Photometer
  /// migrated (a migration this build does not know) is refused unchanged, so an old binary never
  /// writes into a schema it does not understand. A database on a read-only file
  /// system is opened for reading only: queries work and every change fails with
  /// ``StoreError/readOnly``.
  public init(path: String, access: Access = .readWrite) throws(StoreError) {
    var configuration = Configuration()
    configuration.busyMode = .timeout(Self.busyTimeout)
    configuration.foreignKeysEnabled = true
    if access == .readOnly, let reader = try Self.openForReading(path, configuration) {
      (database, isReadOnly) = (reader, true)
      return
    }
    let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    } catch {
      throw .database("cannot create the folder \(folder.path) for \(path): \(Self.reason(error))")
    }
    do {
      // The schema is checked over a plain connection first: opening a pool writes (GRDB sets up
      // WAL with a table created and dropped), which must not happen to a newer version's file.
      let probe = try DatabaseQueue(path: path, configuration: configuration)
      let current = try Self.isCurrent(probe, path: path)
      try probe.close()
      let writer: any DatabaseWriter
      do {
        writer = try DatabasePool(path: path, configuration: configuration)
      } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && current {
        // The pool's WAL set-up writes, and another program holds the write lock past the busy
        // timeout: a queue reads (and later writes) the same WAL database without that set-up.
        writer = try DatabaseQueue(path: path, configuration: configuration)
      }
      if !current {
        try Schema.migrator.migrate(writer)
      }
      (database, isReadOnly) = (writer, false)
    } catch let error as StoreError {
      throw error
    } catch {
      guard Self.onReadOnlyFileSystem(path) else {
        throw .database("cannot open \(path): \(error)")
      }
      // WAL needs its -shm file, which cannot be made here; nothing can change the file on a
      // read-only file system, so SQLite may read it as immutable.
      configuration.readonly = true
      do {
        let queue = try DatabaseQueue(path: "file:\(path)?immutable=1", configuration: configuration)
        guard try Self.isCurrent(queue, path: path) else {
          throw StoreError.database(
            "\(path) is read-only and of an older schema version; open it once where it can be migrated")
        }
        (database, isReadOnly) = (queue, true)
      } catch let error as StoreError {
        throw error
      } catch {
        throw .database("cannot open \(path) (on a read-only file system): \(error)")
      }
    }
  }

  /// Whether every migration this build knows has run on `database`; throws when the database
  /// records one it does not know (a newer Photometer migrated it).
  private static func isCurrent(_ database: some DatabaseReader, path: String) throws -> Bool {
    let (applied, complete) = try database.read { db in
      (try Schema.migrator.appliedIdentifiers(db), try Schema.migrator.hasCompletedMigrations(db))
    }
    let unknown = applied.subtracting(Schema.migrator.migrations).sorted()
    guard unknown.isEmpty else {
      throw StoreError.newerSchema(path: path, migrations: unknown)
    }
    return complete
  }

  /// The operating system's reason for a Foundation file error ("No such file or directory"),
  /// not the error's dump.
  private static func reason(_ error: any Error) -> String {
    let error = error as NSError
    if let underlying = (error.userInfo[NSUnderlyingErrorKey] as? any Error).map({ $0 as NSError }),
      underlying.domain == NSPOSIXErrorDomain
    {
      return String(cString: strerror(Int32(underlying.code)))
    }
    return error.localizedDescription
  }

  /// A read-only connection to the existing database at `path` when its schema is current; `nil`
  /// when there is no file or it needs migrating. Throws for a newer schema and a file that is
  /// not a database.
  private static func openForReading(_ path: String, _ configuration: Configuration) throws(StoreError)
    -> DatabaseQueue?
  {
    guard FileManager.default.fileExists(atPath: path) else { return nil }
    var configuration = configuration
    configuration.readonly = true
    do {
      let queue = try DatabaseQueue(path: path, configuration: configuration)
      guard try isCurrent(queue, path: path) else {
        try queue.close()
        return nil
      }
      return queue
    } catch let error as StoreError {
      throw error
    } catch {
      throw .database("cannot open \(path) for reading: \(error)")
    }
  }

  /// Whether the file system holding `path` is mounted read-only.
  private static func onReadOnlyFileSystem(_ path: String) -> Bool {
    var info = statvfs()
    return statvfs(path, &info) == 0 && info.f_flag & UInt(ST_RDONLY) != 0
  }

  /// Runs a write transaction on GRDB's writer queue, not on the caller's thread, so that a slow
  /// disk or a busy file does not hold a cooperative thread; database failures become
  /// ``StoreError``. A cancelled task's transaction is rolled back.
  func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
    guard !isReadOnly else {
      throw .readOnly
    }
    defer { writes.add(1, ordering: .sequentiallyConsistent) }
    do {
      return try await database.write(body)
    } catch {
      throw Self.storeError(error)
    }
  }

  /// What the file holds, as far as this store can tell: its own writes and other connections'
  /// commits (`PRAGMA data_version` on the writer's connection, which other processes' commits
  /// change). Taken before a read, it names what that read saw or something newer.
  func version() async throws(StoreError) -> StoreVersion {
    let writes = writes.load(ordering: .sequentiallyConsistent)
    do {
      let others = try await database.writeWithoutTransaction { db in
        try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0
      }
      return StoreVersion(writes: writes, others: others)
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
    switch (error as? DatabaseError)?.resultCode {
    case .SQLITE_READONLY?: return .readOnly
    case .SQLITE_FULL?: return .diskFull
    default: return .database("\(error)")
    }
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

/// A store's own writes and other connections' commits, counted (``MeterStore/version()``).
struct StoreVersion: Equatable, Sendable {
  var writes: Int
  var others: Int
}
