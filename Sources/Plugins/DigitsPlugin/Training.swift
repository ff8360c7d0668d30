import DigitTemplates
import Foundation
import PhotometerVision

/// `photometer-digits train`: builds a template file from labelled images.
///
///     photometer-digits train --output FILE [--meterdigits DIR] [--per-label N] [--strips DIR]...
///         [--components N] [--cells FILE]
///
/// `--meterdigits`: the meterdigits data (folders 0.0 to 9.9); only its training part is used,
/// files whose name's FNV-1a hash is not 0 modulo 5 (Tools/make-digits.py holds out the rest).
/// Up to N images per label (default 1,000), evenly spread. `--strips`: folders with labels.csv (file,text) of
/// rendered windows, split into as many cells as the text has digits. Features are kept on
/// their first N principal axes (default 64). `--cells FILE`: also writes every cell's image as the
/// digit network reads it, with its label, for `Tools/train-digit-network.py` (``CellImageFile``).
enum Training {
  static func run(_ arguments: [String]) -> Int32 {
    var output: String?
    var cellsOutput: String?
    var meterdigits: String?
    var strips: [String] = []
    var perLabel = 1000
    var components = 64
    var iterator = arguments.makeIterator()
    while let argument = iterator.next() {
      switch argument {
      case "--output": output = iterator.next()
      case "--cells": cellsOutput = iterator.next()
      case "--meterdigits": meterdigits = iterator.next()
      case "--strips": iterator.next().map { strips.append($0) }
      case "--per-label": perLabel = iterator.next().flatMap(Int.init) ?? perLabel
      case "--components": components = iterator.next().flatMap(Int.init) ?? components
      default:
        printError("unknown argument \(argument)")
        return 2
      }
    }
    guard let output else {
      printError("usage: photometer-digits train --output FILE [--meterdigits DIR] [--per-label N] [--strips DIR]...")
      return 2
    }
    do {
      var samples = Samples()
      if let meterdigits {
        try addMeterDigits(meterdigits, perLabel: perLabel, to: &samples)
      }
      for folder in strips {
        try addStrips(folder, to: &samples)
      }
      let templates = try DigitTemplates(labels: samples.labels, rawFeatures: samples.features, components: components)
      try templates.write(to: URL(fileURLWithPath: output))
      print("wrote \(templates.count) templates to \(output)")
      if let cellsOutput {
        try CellImageFile.write(labels: samples.labels, images: samples.pixels, to: URL(fileURLWithPath: cellsOutput))
        print("wrote \(samples.labels.count) cell images to \(cellsOutput)")
      }
      return 0
    } catch {
      printError("\(error)")
      return 1
    }
  }

  static func addMeterDigits(_ root: String, perLabel: Int, to samples: inout Samples) throws {
    for tenth in 0..<100 {
      let folder = URL(fileURLWithPath: root).appendingPathComponent("\(tenth / 10).\(tenth % 10)")
      let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        .filter { fnv1a($0) % 5 != 0 }
      let step = max(1, names.count / perLabel)
      for name in stride(from: 0, to: names.count, by: step).prefix(perLabel).map({ names[$0] }) {
        let image = try VisionImage(decoding: [UInt8](Data(contentsOf: folder.appendingPathComponent(name))))
        for cell in try TemplateEngine.cells(of: image, expected: 1) {
          samples.add(UInt16(tenth), cell)
        }
      }
    }
  }

  static func addStrips(_ folder: String, to samples: inout Samples) throws {
    let base = URL(fileURLWithPath: folder)
    let rows = try String(contentsOf: base.appendingPathComponent("labels.csv"), encoding: .utf8)
      .split(whereSeparator: \.isNewline).dropFirst().map { $0.split(separator: ",").map(String.init) }
    for row in rows where row.count >= 2 {
      let digits = row[1].compactMap(\.wholeNumberValue)
      let image = try VisionImage(decoding: [UInt8](Data(contentsOf: base.appendingPathComponent(row[0]))))
      let cells = try TemplateEngine.cells(of: image, expected: digits.count)
      // Cells that are not one per digit would be labelled out of step.
      guard cells.count == digits.count else {
        print("skipped \(row[0]): \(cells.count) cells for \(digits.count) digits")
        continue
      }
      for (cell, digit) in zip(cells, digits) {
        samples.add(UInt16(digit * 10), cell)
      }
    }
  }

  /// Labelled cells: their raw features and images.
  struct Samples {
    var labels: [UInt16] = []
    var features: [Float] = []
    var pixels: [Float] = []

    mutating func add(_ label: UInt16, _ cell: TemplateEngine.Cell) {
      labels.append(label)
      features.append(contentsOf: cell.features)
      pixels.append(contentsOf: cell.pixels)
    }

  }

  /// 32-bit FNV-1a of a file name: the held-out split shared with Tools/make-digits.py.
  static func fnv1a(_ text: String) -> UInt32 {
    text.utf8.reduce(0x811C_9DC5) { ($0 ^ UInt32($1)) &* 0x0100_0193 }
  }

  static func printError(_ message: String) {
    FileHandle.standardError.write(Data("photometer-digits train: \(message)\n".utf8))
  }
}
