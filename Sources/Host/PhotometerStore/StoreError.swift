/// Why the store refused a change or a query. Nothing is changed when it throws.
public enum StoreError: Error, Hashable, Sendable, CustomStringConvertible {
  /// No meter has this name.
  case meterNotFound(String)
  /// No reading has this id.
  case readingNotFound(Int64)
  /// Another meter has this name (names are compared without regard to case).
  case duplicateMeter(String)
  /// The meter has readings and the request did not say to remove them too.
  case meterHasReadings(String, count: Int)
  /// A value, unit, time or setting is wrong; the message says which and why.
  case invalid(String)
  /// A photo is not an image, or is over a limit.
  case badImage(String)
  /// The database failed (disk full, read-only file, corrupt file).
  case database(String)
  /// A newer Photometer migrated the database (these migrations are unknown to this build); it is
  /// left unchanged.
  case newerSchema(path: String, migrations: [String])
  /// The database was opened for reading only (it lies on a read-only file system, or the host
  /// was started with `--read-only`): it can be read, not changed.
  case readOnly
  /// The disk (or the database's size limit) is full; the change was rolled back.
  case diskFull

  public var description: String {
    switch self {
    case .meterNotFound(let name): "no meter is named '\(name)'"
    case .readingNotFound(let id): "no reading has the id \(id)"
    case .duplicateMeter(let name): "a meter named '\(name)' already exists (names ignore case)"
    case .meterHasReadings(let name, let count):
      "meter '\(name)' has \(count) reading(s); remove them too with --with-readings, or keep the meter"
    case .invalid(let reason), .badImage(let reason): reason
    case .database(let reason): "the database failed: \(reason)"
    case .newerSchema(let path, let migrations):
      "\(path) was migrated by a newer Photometer (\(migrations.joined(separator: "; "))); "
        + "this version leaves it unchanged: use that version or a newer one, or another --db"
    case .readOnly:
      "the database was opened for reading only (a read-only file system, or the host's --read-only): "
        + "it can be read, not changed"
    case .diskFull: "the disk is full: the change was not stored; free some space and try again"
    }
  }
}
