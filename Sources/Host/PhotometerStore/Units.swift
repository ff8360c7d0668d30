import Foundation
import PhotometerProtocol

extension MeterKind {
  /// The units a value of this kind may be given or asked in, each as `canonical = value x scale
  /// + offset`.
  var units: [String: (scale: Double, offset: Double)] {
    switch self {
    case .water, .gas: ["m3": (1, 0), "L": (0.001, 0)]
    case .electricity, .heat: ["kWh": (1, 0), "Wh": (0.001, 0), "MWh": (1000, 0)]
    case .glucose: ["mg/dL": (1, 0), "mmol/L": (Units.glucoseMilligramsPerDecilitrePerMillimole, 0)]
    case .thermometer: ["C": (1, 0), "F": (5.0 / 9.0, -32 * 5.0 / 9.0)]
    case .bloodPressure: ["mmHg": (1, 0)]
    case .other: [:]
    }
  }
}

/// Unit names and conversions at the edge: values are stored as read, converted when asked.
public enum Units {
  /// mg/dL of glucose in 1 mmol/L.
  public static let glucoseMilligramsPerDecilitrePerMillimole = 18.016

  private static let spellings: [String: String] = [
    "m³": "m3", "l": "L", "litre": "L", "liter": "L", "litres": "L", "liters": "L", "°c": "C", "c": "C",
    "°f": "F", "f": "F", "kwh": "kWh", "wh": "Wh", "mwh": "MWh", "mg/dl": "mg/dL", "mmol/l": "mmol/L",
    "mmhg": "mmHg",
  ]

  /// The unit's standard spelling for `kind` (empty means the canonical unit).
  ///
  /// - Throws: ``StoreError/invalid(_:)`` naming the units the kind takes.
  public static func normalize(_ unit: String, for kind: MeterKind) throws(StoreError) -> String {
    let trimmed = unit.trimmingCharacters(in: .whitespaces)
    guard !trimmed.isEmpty else {
      return kind.canonicalUnit
    }
    if kind == .other {
      return trimmed
    }
    let name = spellings[trimmed.lowercased()] ?? trimmed
    guard kind.units[name] != nil else {
      throw .invalid(
        "'\(unit)' is not a unit for a \(kind.rawValue) meter; use one of \(kind.units.keys.sorted().joined(separator: ", "))"
      )
    }
    return name
  }

  /// `value` in `from` converted to `to`, both standard spellings for `kind`.
  public static func convert(_ value: Double, from: String, to: String, kind: MeterKind) -> Double {
    guard from != to, let source = kind.units[from], let target = kind.units[to] else {
      return value
    }
    let canonical = value * source.scale + source.offset
    return (canonical - target.offset) / target.scale
  }

  /// `text` (a value in `from`) as text in `to`, with as many decimals as the conversion keeps
  /// meaningful: 1234.567 m3 is 1234567 L, 100 mg/dL is 5.55 mmol/L, 36.6 C is 97.9 F.
  public static func convert(text: String, numeric: Double, from: String, to: String, kind: MeterKind) -> String {
    guard from != to, let source = kind.units[from], let target = kind.units[to] else {
      return text
    }
    let decimals = text.split(separator: ".").dropFirst().first?.count ?? 0
    let ratio = source.scale / target.scale
    let places = min(max(decimals + Int((-log10(ratio)).rounded(.up)), 0), 6)
    return String(format: "%.\(places)f", convert(numeric, from: from, to: to, kind: kind))
  }
}

/// A value as a person or an engine wrote it: digits with an optional sign and decimal point or
/// comma; for blood pressure, `systolic/diastolic[/pulse]`.
enum ValueText {
  /// The value's text kept as read (a comma becomes a point) and its number.
  static func parse(_ text: String, kind: MeterKind) throws(StoreError) -> (text: String, numeric: Double) {
    let trimmed = text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ",", with: ".")
    if kind == .bloodPressure {
      let parts = trimmed.split(separator: "/", omittingEmptySubsequences: false)
      guard (2...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }),
        let systolic = Double(parts[0])
      else {
        throw .invalid("'\(text)' is not a blood pressure; write systolic/diastolic or systolic/diastolic/pulse")
      }
      return (trimmed, systolic)
    }
    let unsigned = trimmed.hasPrefix("-") || trimmed.hasPrefix("+") ? String(trimmed.dropFirst()) : trimmed
    let pieces = unsigned.split(separator: ".", omittingEmptySubsequences: false)
    guard (1...2).contains(pieces.count),
      pieces.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
      let numeric = Double(trimmed), numeric.isFinite
    else {
      throw .invalid("'\(text)' is not a number")
    }
    return (trimmed, numeric)
  }
}
