import Foundation

/// Images rendered by the project's generators (Tools/make-households.py, Tools/make-digits.py),
/// into a fresh temporary folder.
public enum Rendered {
  /// A household: `meters.csv`, `queries.csv`, `references/`, `queries/`.
  public static func household(meters: Int, queries: Int, unknown: Int, set: String = "varied", seed: Int = 5)
    async throws -> URL
  {
    try await generate(
      "make-households.py",
      [
        "--set", set, "--meters", "\(meters)", "--queries", "\(queries)", "--unknown", "\(unknown)", "--seed",
        "\(seed)",
      ])
  }

  /// Digit windows of `kind` (sevenseg, wheels, real) with `labels.csv` (file,text,accept).
  public static func digits(_ kind: String, count: Int, seed: Int, extra: [String] = []) async throws -> URL {
    try await generate("make-digits.py", ["--kind", kind, "--count", "\(count)", "--seed", "\(seed)"] + extra)
  }

  /// Water meters with wheels and pointer dials (Tools/make-dial-meters.py) with `labels.csv`
  /// (file, value, wheels, dials, positions, wheel_roll; with `references`, each meter square on at
  /// another reading too, reference-NNNN.jpg, and reference_wheels, reference_dials).
  public static func dialMeters(count: Int, seed: Int, style: String = "ours", references: Bool = false)
    async throws -> URL
  {
    try await generate(
      "make-dial-meters.py",
      ["--count", "\(count)", "--seed", "\(seed)", "--style", style] + (references ? ["--references"] : []))
  }

  /// Whole photos of glucose meters and thermometers (Tools/make-device-photos.py), or of
  /// devices of `kind` alone (blood-pressure), with `labels.csv` (file, kind, value, box); `turn`
  /// degrees anticlockwise (0, 90, 180, 270), as photos that lost their EXIF orientation come.
  public static func devicePhotos(count: Int, seed: Int, style: String = "ours", kind: String? = nil, turn: Int = 0)
    async throws -> URL
  {
    try await generate(
      "make-device-photos.py",
      ["--count", "\(count)", "--seed", "\(seed)", "--style", style, "--turn", "\(turn)"]
        + (kind.map { ["--kind", $0] } ?? []))
  }

  /// Images that try to break an image pipeline (Tools/make-hostile-images.py).
  public static func hostileImages() async throws -> URL {
    try await generate("make-hostile-images.py", [])
  }

  /// Rows of a CSV file the generators wrote, header dropped.
  public static func rows(_ url: URL) throws -> [[String]] {
    try String(contentsOf: url, encoding: .utf8).split(separator: "\n").dropFirst().map {
      $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }
  }

  private static func generate(_ tool: String, _ arguments: [String]) async throws -> URL {
    let folder = Scratch.folder.appendingPathComponent("photometer-\(UUID().uuidString)")
    let output = try await runCommand("\(Products.repository)/Tools/\(tool)", [folder.path] + arguments)
    guard output.status == 0 else {
      throw GeneratorFailed(description: "\(tool) failed: \(output.standardError)")
    }
    return folder
  }

  struct GeneratorFailed: Error, CustomStringConvertible {
    var description: String
  }
}
