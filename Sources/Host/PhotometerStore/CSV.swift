/// RFC 4180 CSV: fields separated by commas, quoted when they hold a comma, quote or line break,
/// quotes doubled inside quotes; lines end with `\n` (a `\r\n` is read too).
enum CSV {
  static func line(_ fields: [String]) -> String {
    fields.map(quote).joined(separator: ",") + "\n"
  }

  static func quote(_ field: String) -> String {
    guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
    return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }

  /// The records of `text`, each a list of fields.
  static func parse(_ text: String) throws(StoreError) -> [[String]] {
    var records: [[String]] = []
    var record: [String] = []
    var field = ""
    var quoted = false
    var afterQuote = false
    var line = 1
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
      case ",":
        record.append(field)
        field = ""
        afterQuote = false
      case "\n", "\r\n":
        record.append(field)
        records.append(record)
        (record, field, afterQuote) = ([], "", false)
        line += 1
      default:
        guard !afterQuote else { throw .invalid("CSV line \(line): text after a closing quote") }
        field.append(character)
      }
    }
    guard !quoted else { throw .invalid("CSV line \(line): a quoted field is not closed") }
    if !field.isEmpty || !record.isEmpty {
      record.append(field)
      records.append(record)
    }
    return records
  }
}
