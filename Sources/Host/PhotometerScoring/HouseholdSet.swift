import Foundation
import PhotometerProtocol

/// A rendered household (Tools/make-households.py): `meters.csv` (name, reference,
/// roi_x, roi_y, roi_width, roi_height, digits) and `queries.csv` (file, meter; the meter empty
/// for one that was never registered). Paths are made absolute.
public struct HouseholdSet: Sendable {
  public struct Meter: Sendable {
    public var name: String
    /// The reference photo's path.
    public var reference: String
    public var roi: Rect?
    public var digits: Int
  }

  public struct Query: Sendable {
    public var path: String
    /// Empty for a meter that was never registered.
    public var meter: String
  }

  public var meters: [Meter] = []
  public var queries: [Query] = []

  public init(_ directory: String) throws(LabelledSet.Invalid) {
    let base = URL(fileURLWithPath: directory)
    for row in try Self.rows(base.appendingPathComponent("meters.csv"), header: "name,reference") {
      guard row.count >= 2 else {
        throw LabelledSet.Invalid(description: "\(directory)/meters.csv: expected name,reference,...")
      }
      let numbers = row.dropFirst(2).compactMap { Int32($0) }
      meters.append(
        Meter(
          name: row[0], reference: base.appendingPathComponent(row[1]).path,
          roi: numbers.count >= 4 ? Rect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3]) : nil,
          digits: numbers.count >= 5 ? Int(numbers[4]) : 0))
    }
    for row in try Self.rows(base.appendingPathComponent("queries.csv"), header: "file,meter") {
      queries.append(Query(path: base.appendingPathComponent(row[0]).path, meter: row.count > 1 ? row[1] : ""))
    }
  }

  private static func rows(_ file: URL, header: String) throws(LabelledSet.Invalid) -> [[String]] {
    guard let text = try? String(contentsOf: file, encoding: .utf8) else {
      throw LabelledSet.Invalid(description: "\(file.path) cannot be read")
    }
    let lines = text.split(whereSeparator: \.isNewline)
    guard lines.first?.hasPrefix(header) == true else {
      throw LabelledSet.Invalid(description: "\(file.path) must start with the header \(header)")
    }
    return lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
  }
}
