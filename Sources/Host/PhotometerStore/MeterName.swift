import Foundation
import GRDB

/// Meter names as the store keeps and compares them.
///
/// A name is kept trimmed and in Unicode NFC, and must be printable: control and formatting
/// characters (terminal escapes, right-to-left overrides) would rewrite `meter list` on a terminal
/// and break the SVG charts. Two names are one meter when their ``key(_:)``s match: NFC and
/// Unicode case folding, so "ZÄHLER" and "zähler" (composed or decomposed) are one name.
enum MeterName {
  static let maxLength = 100

  /// `raw` as the store keeps it, or why it cannot be a name.
  static func checked(_ raw: String) throws(StoreError) -> String {
    let name = raw.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
    guard !name.isEmpty, name.count <= maxLength else {
      throw .invalid("a meter name must be 1 to \(maxLength) characters on one line")
    }
    if let scalar = name.unicodeScalars.first(where: isUnprintable) {
      let code = String(scalar.value, radix: 16, uppercase: true)
      throw .invalid(
        "a meter name cannot hold the control or formatting character U+\(String(repeating: "0", count: max(0, 4 - code.count)))\(code)"
      )
    }
    return name
  }

  /// What two names that are one meter's have in common.
  static func key(_ name: String) -> String {
    name.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
      .folding(options: .caseInsensitive, locale: nil).precomposedStringWithCanonicalMapping
  }

  /// The id of the meter whose name is `name`'s, if any (the exact spelling is looked up first).
  ///
  /// The column compares ASCII letters without case, so an ASCII name that the lookup misses can
  /// only be the key of a stored name outside ASCII (folding makes the Kelvin sign a "k" and "ß"
  /// an "ss") or with spaces around it (names are stored trimmed, but a file from before may hold
  /// one): only those are folded one by one. Folding every name made each meter added to a store
  /// of 10,000 take about 25 ms.
  static func meterID(_ name: String, db: Database) throws -> Int64? {
    let spelled = name.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
    if let id = try Int64.fetchOne(db, sql: "SELECT id FROM meter WHERE name = ?", arguments: [spelled]) {
      return id
    }
    let wanted = key(name)
    let unusual =
      spelled.unicodeScalars.allSatisfy(\.isASCII)
      ? " WHERE name GLOB '*[^ -~]*' OR name GLOB ' *' OR name GLOB '* '" : ""
    let rows = try Row.fetchCursor(db, sql: "SELECT id, name FROM meter\(unusual)")
    while let row = try rows.next() {
      if key(row["name"]) == wanted {
        return row["id"]
      }
    }
    return nil
  }

  /// Controls, formatting characters (bidirectional overrides among them, but not the zero-width
  /// joiners that scripts and emoji need), line and paragraph separators, unassigned code points.
  private static func isUnprintable(_ scalar: Unicode.Scalar) -> Bool {
    if scalar == "\u{200C}" || scalar == "\u{200D}" {
      return false
    }
    switch scalar.properties.generalCategory {
    case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: return true
    default: return false
    }
  }
}
