import DigitReader
import Foundation
import PhotometerProtocol
import PhotometerVision
import PluginKit

/// The sequence digit reader as a read plugin. Option `model`: an ONNX reader from
/// Tools/train-digit-reader.py, its `.json` settings beside it, to use instead of the bundled
/// panel (an A/B test of two trainings), or several separated by commas, voting on whole
/// readings (``ReaderPanel``) when the first is less sure than `consult_below`; `cells`: another
/// cell classifier from Tools/train-digit-classifier.py; `cell_share`: its weight in the pool (0: the reader alone);
/// `memory_share`: the weight of what the meter's confirmed readings taught; `threads`: OpenCV's.
/// The request's `digits`, else the count the meter's confirmed readings agree on
/// (``MeterPrior``), constrains the decoding; without either the reader finds the count itself.
/// The crops of the meter's confirmed readings are asked for once each and teach its
/// ``DigitMemory`` (``MeterMemories``). A survey read (a row of a whole photo being compared) is
/// the first training's alone (``ReaderPanel/survey(_:digits:memory:)``). A row the host found in
/// a whole photo (``ReadRequest/foundRow``) is read with option `found_model` in the first
/// training's place: by default the bundled ``ReaderPanel/foundRowModel`` with the bundled panel,
/// and with a `model` given, that panel as it is.
struct ReaderRecognizer: Recognizer {
  static let acceptedOptions = [
    OptionSpec(
      name: "model",
      description:
        "an ONNX reader from Tools/train-digit-reader.py, its .json beside it; several, comma-separated, vote",
      defaultValue: ""),
    OptionSpec(
      name: "found_model",
      description:
        "an ONNX reader for rows found in a whole photo, in the first model's place (default: the bundled one, or none with `model`)",
      defaultValue: ""),
    OptionSpec(
      name: "consult_below",
      description: "the first model's confidence below which the others read and vote, 0 to 1 (1: always)",
      defaultValue: String(ReaderPanel.defaultConsultBelow)),
    OptionSpec(
      name: "cells", description: "an ONNX cell classifier from Tools/train-digit-classifier.py", defaultValue: ""),
    OptionSpec(
      name: "cell_share", description: "the cell classifier's weight in the pool, 0 to 1 (0: the reader alone)",
      defaultValue: String(SequenceReader.defaultCellShare)),
    OptionSpec(
      name: "threads", description: "the threads OpenCV may use in this plugin process (1: one)",
      defaultValue: String(ReaderNetwork.defaultThreads)),
    OptionSpec(
      name: "memory_share",
      description: "the weight of what a meter's confirmed readings taught, 0 to 1 (0: learn only their digit count)",
      defaultValue: String(DigitMemory.defaultShare)),
  ]

  let roles: [Role] = [.read]
  private var reader: ReaderPanel?
  /// The panel for rows found in a whole photo.
  private var foundRowReader: ReaderPanel?
  private var memories = MeterMemories()

  mutating func handshake(_ host: Hello) throws(ErrorReply) -> Hello {
    let path = host.options["model"] ?? ""
    let cellsPath = host.options["cells"] ?? ""
    let foundPath = host.options["found_model"] ?? ""
    let fraction = "a number from 0 to 1"
    let share = try host.number(
      "cell_share", in: 0...1, fallback: SequenceReader.defaultCellShare, expected: fraction)
    let memoryShare = try host.number(
      "memory_share", in: 0...1, fallback: DigitMemory.defaultShare, expected: fraction)
    let consultBelow = try host.number(
      "consult_below", in: 0...1, fallback: ReaderPanel.defaultConsultBelow, expected: fraction)
    let threads = try host.number(
      "threads", in: 1...64, fallback: ReaderNetwork.defaultThreads, expected: "a whole number from 1 to 64")
    ReaderNetwork.useThreads(threads)
    do {
      let files = path.split(separator: ",")
      let networks =
        try files.isEmpty
        ? ReaderPanel.bundledNetworks() : files.map { try ReaderNetwork(model: URL(fileURLWithPath: String($0))) }
      let cells =
        try cellsPath.isEmpty ? CellClassifier.bundled() : CellClassifier(model: URL(fileURLWithPath: cellsPath))
      let panel = ReaderPanel(
        networks.map { SequenceReader(network: $0, cells: cells, cellShare: share, memoryShare: memoryShare) },
        consultBelow: consultBelow)
      let foundRowNetwork =
        try foundPath.isEmpty
        ? (files.isEmpty ? ReaderNetwork.bundled(ReaderPanel.foundRowModel) : nil)
        : ReaderNetwork(model: URL(fileURLWithPath: foundPath))
      reader = panel
      foundRowReader = foundRowNetwork.map(panel.replacingFirst(with:)) ?? panel
      return Hello(
        name: "photometer-reader", softwareVersion: "1.0.0", acceptedOptions: Self.acceptedOptions,
        details: [
          "engine": "sequence reader (CTC, OpenCV dnn) with a cell classifier",
          "model": path.isEmpty ? "bundled" : path,
          "found_model": foundPath.isEmpty ? (foundRowNetwork == nil ? "none" : "bundled") : foundPath,
          "cells": cellsPath.isEmpty ? "bundled" : cellsPath, "cell_share": String(share),
          "memory_share": String(memoryShare), "consult_below": String(consultBelow), "threads": String(threads),
        ])
    } catch {
      throw ErrorReply(.invalidRequest, "cannot load the digit reader: \(error)")
    }
  }

  mutating func read(_ request: ReadRequest) throws(ErrorReply) -> EngineReading {
    let crop = try DigitCrop.decode(request)
    let digits =
      request.digits > 0 ? Int(request.digits) : MeterPrior(confirmed: request.examples.map(\.value)).digits ?? 0
    let reader = reader!
    let panel = request.foundRow ? foundRowReader! : reader
    let (memory, missing) = memories.memory(
      meter: request.meter, examples: reader.memoryShare > 0 ? request.examples : []
    ) { example in
      guard let image = try? VisionImage(decoding: example.crop) else { return DigitMemory() }
      return (try? reader.memory(of: image, confirmed: example.value)) ?? DigitMemory()
    }
    do {
      var reading: EngineReading
      if request.survey {
        (reading, reading.refinable) = try panel.survey(crop, digits: digits, memory: memory)
      } else {
        reading = try panel.read(crop, digits: digits, memory: memory)
      }
      reading.missingExamples = missing
      return reading
    } catch {
      throw ErrorReply(.internal, "reading failed: \(error)")
    }
  }
}
