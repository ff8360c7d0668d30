import Foundation
import PhotometerVision

/// Labelled cell features the template engine matches digit cells against.
///
/// Cell features (``CellFeatures``) are projected on their principal axes and normalised, which
/// keeps the file small and matching fast. A label is a digit in tenths of a wheel's roll, 0 to
/// 99: 45 is a wheel half-way from 4 to 5, as in the meterdigits data; rendered digits are whole
/// (40). The file is little-endian: "PMDT", version 2, dimensions, components, count (UInt32
/// each); the mean and the axes (Float32); the labels (UInt16); the projected templates (Float16).
public struct DigitTemplates: Sendable {
  public private(set) var mean: [Float]
  /// `components` rows of ``CellFeatures/dimensions`` floats.
  public private(set) var axes: [Float]
  public private(set) var components: Int
  public private(set) var labels: [UInt16] = []
  /// `count` rows of `components` floats, unit length.
  public private(set) var features: [Float] = []
  /// ``features`` laid out for the nearest-template search.
  public private(set) var index: TemplateIndex

  public var count: Int { labels.count }

  /// Templates from raw cell features (rows of ``CellFeatures/dimensions`` floats), projected on
  /// their first `components` principal axes.
  public init(labels: [UInt16], rawFeatures: [Float], components: Int) throws(VisionError) {
    (mean, axes) = try CellFeatures.principalComponents(of: rawFeatures, components: components)
    self.components = components
    self.labels = labels
    let dimensions = CellFeatures.dimensions
    var features: [Float] = []
    for row in 0..<labels.count {
      let raw = Array(rawFeatures[(row * dimensions)..<((row + 1) * dimensions)])
      features.append(contentsOf: Self.project(raw, mean: mean, axes: axes, components: components))
    }
    self.features = features
    index = try TemplateIndex(templates: features, dimensions: components)
  }

  /// The templates that ship with the plugin (built by `photometer-digits train`).
  public static func bundled() throws -> DigitTemplates {
    guard let url = Bundle.module.url(forResource: "digit-templates", withExtension: "bin") else {
      throw TemplateFileError("the bundled digit-templates.bin is missing")
    }
    return try DigitTemplates(contentsOf: url)
  }

  /// A cell's raw features on the templates' axes, unit length.
  public func project(_ raw: [Float]) -> [Float] {
    Self.project(raw, mean: mean, axes: axes, components: components)
  }

  private static func project(_ raw: [Float], mean: [Float], axes: [Float], components: Int) -> [Float] {
    let dimensions = CellFeatures.dimensions
    var centred = raw
    for index in 0..<dimensions { centred[index] -= mean[index] }
    var projected = [Float](repeating: 0, count: components)
    axes.withUnsafeBufferPointer { axes in
      for component in 0..<components {
        var sum: Float = 0
        let base = component * dimensions
        for index in 0..<dimensions { sum += axes[base + index] * centred[index] }
        projected[component] = sum
      }
    }
    let norm = max(projected.reduce(0) { $0 + $1 * $1 }.squareRoot(), 1e-6)
    return projected.map { $0 / norm }
  }

  public init(contentsOf url: URL) throws {
    let data = [UInt8](try Data(contentsOf: url))
    var reader = ByteReader(data, path: url.path)
    guard try reader.bytes(4) == Array("PMDT".utf8), try reader.word() == 2 else {
      throw TemplateFileError(
        "\(url.path) is not a version 2 digit template file; rebuild it with photometer-digits train")
    }
    let dimensions = Int(try reader.word())
    components = Int(try reader.word())
    let count = Int(try reader.word())
    guard dimensions == CellFeatures.dimensions, components > 0, components <= dimensions else {
      throw TemplateFileError("\(url.path) was made for other cell features; rebuild it with photometer-digits train")
    }
    mean = try reader.floats(dimensions)
    axes = try reader.floats(components * dimensions)
    labels = try reader.halves(count)
    features = try reader.halves(count * components).map { Float(Float16(bitPattern: $0)) }
    guard reader.atEnd else { throw TemplateFileError("\(url.path) has trailing bytes") }
    index = try TemplateIndex(templates: features, dimensions: components)
  }

  public func write(to url: URL) throws {
    var writer = ByteWriter(magic: "PMDT")
    for value in [2, CellFeatures.dimensions, components, count] { writer.word(UInt32(value)) }
    mean.forEach { writer.word($0.bitPattern) }
    axes.forEach { writer.word($0.bitPattern) }
    labels.forEach { writer.half($0) }
    features.forEach { writer.half(Float16($0).bitPattern) }
    try Data(writer.bytes).write(to: url, options: .atomic)
  }
}

/// Little-endian writes, after a four-letter magic.
struct ByteWriter {
  private(set) var bytes: [UInt8]

  init(magic: String) {
    bytes = Array(magic.utf8)
  }

  mutating func word(_ value: UInt32) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }

  mutating func half(_ value: UInt16) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }
}

/// Little-endian reads with bounds checks.
struct ByteReader {
  let data: [UInt8]
  let path: String
  var offset = 0

  init(_ data: [UInt8], path: String) {
    self.data = data
    self.path = path
  }

  var atEnd: Bool { offset == data.count }

  mutating func bytes(_ count: Int) throws -> [UInt8] {
    guard offset + count <= data.count else { throw TemplateFileError("\(path) is truncated") }
    defer { offset += count }
    return Array(data[offset..<(offset + count)])
  }

  mutating func word() throws -> UInt32 {
    try bytes(4).reversed().reduce(0) { $0 << 8 | UInt32($1) }
  }

  mutating func halves(_ count: Int) throws -> [UInt16] {
    let bytes = try bytes(2 * count)
    return bytes.withUnsafeBytes { raw in
      (0..<count).map { UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self)) }
    }
  }

  mutating func floats(_ count: Int) throws -> [Float] {
    let bytes = try bytes(4 * count)
    return bytes.withUnsafeBytes { raw in
      (0..<count).map {
        Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self)))
      }
    }
  }
}

/// A template file that cannot be used.
public struct TemplateFileError: Error, CustomStringConvertible {
  public var description: String

  init(_ description: String) {
    self.description = description
  }
}
