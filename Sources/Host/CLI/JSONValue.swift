import Foundation
import PhotometerProtocol

/// A JSON value whose objects keep their keys in the order they were given, so that JSON Lines
/// output reads in the documented order (`image` first).
enum JSONValue: Equatable, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([(String, JSONValue)])

  init(stringLiteral value: String) { self = .string(value) }
  init(booleanLiteral value: Bool) { self = .bool(value) }

  static func number(_ value: some BinaryInteger) -> JSONValue { .number(Double(value)) }

  /// A rectangle as `[x, y, width, height]`.
  static func rect(_ rect: Rect) -> JSONValue {
    .array([.number(rect.x), .number(rect.y), .number(rect.width), .number(rect.height)])
  }

  /// A string, or `null` when it is `nil` or empty.
  static func optional(_ value: String?) -> JSONValue {
    guard let value, !value.isEmpty else { return .null }
    return .string(value)
  }

  static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.rendered == rhs.rendered }

  /// The value as compact JSON text.
  var rendered: String {
    switch self {
    case .null: "null"
    case .bool(let value): value ? "true" : "false"
    case .number(let value): Self.render(value)
    case .string(let value): Self.quote(value)
    case .array(let values): "[" + values.map(\.rendered).joined(separator: ",") + "]"
    case .object(let members): "{" + members.map { Self.quote($0) + ":" + $1.rendered }.joined(separator: ",") + "}"
    }
  }

  private static func render(_ value: Double) -> String {
    guard value.isFinite else { return "null" }
    if value == value.rounded(), abs(value) < 1e15 {
      return String(Int64(value))
    }
    return "\(value)"
  }

  private static func quote(_ string: String) -> String {
    var result = "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }
}
