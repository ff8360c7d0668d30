/// RFC 4180 CSV, as `export` writes and `import` reads it (and `readings --csv` writes): fields
/// separated by commas, quoted when they hold a comma, quote or line break, quotes doubled inside
/// quotes; lines end with `\n` (a `\r\n` is read too).
///
/// A field a spreadsheet would run as a formula (one starting with `=`, `+`, `-`, `@`, a tab or a
/// carriage return, that is not a plain number) is written with an apostrophe before it, as
/// OWASP's advice on CSV injection has it; so is one that starts with an apostrophe, and
/// ``parse(_:)`` takes that one apostrophe off again, so that every field reads back as it was.
public enum CSV {
  public static func line(_ fields: [String]) -> String {
    fields.map(field).joined(separator: ",") + "\n"
  }

  /// One field as written: neutralised, then quoted when it must be.
  public static func field(_ text: String) -> String {
    let safe = runsAsFormula(text) || text.hasPrefix("'") ? "'" + text : text
    guard safe.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return safe }
    return "\"" + String(safe.flatMap { $0 == "\"" ? ["\"", "\""] : [$0] }) + "\""
  }

  /// Whether a spreadsheet would take `text` for a formula: it starts with one of the characters
  /// that open one and is not a signed decimal number ("-3.5" is a value, "-1+cmd" is not).
  static func runsAsFormula(_ text: String) -> Bool {
    guard let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) else { return false }
    let digits = text.unicodeScalars.dropFirst()
    let parts = String(digits).split(separator: ".", omittingEmptySubsequences: false)
    let isNumber =
      (first == "-" || first == "+") && (1...2).contains(parts.count)
      && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
    return !isNumber
  }

  /// The records of `text`, each a list of fields.
  public static func parse(_ text: String) throws(CSVError) -> [[String]] {
    var records: [[String]] = []
    var record: [String] = []
    var field = ""
    var quoted = false
    var afterQuote = false
    var line = 1
    var opened = 1
    for character in text {
      if quoted {
        if character == "\"" {
          quoted = false
          afterQuote = true
        } else {
          field.append(character)
          if character.isNewline { line += 1 }
        }
        continue
      }
      switch character {
      case "\"" where afterQuote:
        field.append("\"")
        quoted = true
        afterQuote = false
      case "\"" where field.isEmpty:
        quoted = true
        opened = line
      case ",":
        record.append(unescaped(field))
        field = ""
        afterQuote = false
      case "\n", "\r\n":
        record.append(unescaped(field))
        records.append(record)
        (record, field, afterQuote) = ([], "", false)
        line += 1
      default:
        guard !afterQuote else { throw CSVError(line: line, problem: "text after a closing quote") }
        field.append(character)
      }
    }
    guard !quoted else { throw CSVError(line: opened, problem: "a quoted field is not closed") }
    if !field.isEmpty || !record.isEmpty {
      record.append(unescaped(field))
      records.append(record)
    }
    return records
  }

  /// A field as it was before ``field(_:)`` put an apostrophe before it.
  static func unescaped(_ field: String) -> String {
    field.hasPrefix("'") ? String(field.dropFirst()) : field
  }
}

/// Why a text is no CSV.
public struct CSVError: Error, Hashable, Sendable, CustomStringConvertible {
  public var line: Int
  public var problem: String

  public init(line: Int, problem: String) {
    self.line = line
    self.problem = problem
  }

  public var description: String { "CSV line \(line): \(problem)" }
}
