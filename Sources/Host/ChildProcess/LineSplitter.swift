/// Cuts a byte stream into lines for logging, splitting lines that are too long.
struct LineSplitter {
  /// Lines longer than this are cut into pieces of this size.
  static let maxLineLength = 8192

  private var pending: [UInt8] = []

  /// Takes bytes and returns the lines they complete.
  mutating func append(_ bytes: some Sequence<UInt8>) -> [String] {
    var lines: [String] = []
    for byte in bytes {
      if byte == UInt8(ascii: "\n") {
        lines.append(take())
      } else {
        pending.append(byte)
        if pending.count == Self.maxLineLength {
          lines.append(take())
        }
      }
    }
    return lines
  }

  /// The last, unterminated line, if any.
  mutating func finish() -> String? {
    pending.isEmpty ? nil : take()
  }

  private mutating func take() -> String {
    defer { pending.removeAll(keepingCapacity: true) }
    if pending.last == UInt8(ascii: "\r") {
      pending.removeLast()
    }
    return String(decoding: pending, as: UTF8.self)
  }
}
