import DigitTemplates
import Foundation
import PhotometerProtocol
import PhotometerVision
import PluginKit

/// The template OCR as a read plugin. Options `templates` and `network`: a template file and a
/// network file to use instead of the bundled ones (`network` "none": templates alone). The
/// request's `digits`, when set, fixes the number of cells.
struct DigitsRecognizer: Recognizer {
  static let acceptedOptions = [
    OptionSpec(name: "templates", description: "template file from `photometer-digits train`", defaultValue: ""),
    OptionSpec(
      name: "network", description: "network file from Tools/train-digit-network.py, or none", defaultValue: ""),
  ]

  let roles: [Role] = [.read]
  private var engine: TemplateEngine?
  /// Per meter, the cells learnt from each confirmed reading the host sent, by example key
  /// (`nil`: the crop's cells did not match its value, so it teaches nothing).
  private var learnt: [String: [String: LearntCells?]] = [:]

  mutating func handshake(_ host: Hello) throws(ErrorReply) -> Hello {
    do {
      let path = host.options["templates"] ?? ""
      let templates =
        try path.isEmpty ? DigitTemplates.bundled() : DigitTemplates(contentsOf: URL(fileURLWithPath: path))
      let networks: [DigitNetwork] =
        switch host.options["network"] ?? "" {
        case "": try DigitNetwork.bundled()
        case "none": []
        case let path: try DigitNetwork.networks(contentsOf: URL(fileURLWithPath: path))
        }
      engine = TemplateEngine(templates: templates, networks: networks)
      return Hello(
        name: "photometer-digits", softwareVersion: "1.0.0", acceptedOptions: Self.acceptedOptions,
        details: [
          "engine": networks.isEmpty ? "templates" : "templates+network", "templates": "\(templates.count)",
          "networks": "\(networks.count)",
        ])
    } catch {
      throw ErrorReply(.invalidRequest, "cannot load the digit templates: \(error)")
    }
  }

  mutating func read(_ request: ReadRequest) throws(ErrorReply) -> EngineReading {
    let crop = try DigitCrop.decode(request)
    let (own, missing) = learn(from: request)
    do {
      var reading = try engine!.read(crop, expected: Int(request.digits), learnt: own)
      reading.missingExamples = missing
      return reading
    } catch {
      throw ErrorReply(.internal, "reading failed: \(error)")
    }
  }

  /// Learns the request's examples this plugin has not seen and that came with their crop, and
  /// forgets the meter's examples the host no longer sends (deleted, corrected or too old).
  /// Returns the meter's cells and the keys of the examples still to be sent with their crop.
  private mutating func learn(from request: ReadRequest) -> (LearntCells, missing: [String]) {
    guard !request.meter.isEmpty, !request.examples.isEmpty else { return (LearntCells(), []) }
    let known = learnt[request.meter] ?? [:]
    var kept: [String: LearntCells?] = [:]
    var missing: [String] = []
    for example in request.examples {
      // (`updateValue`: assigning a nil `LearntCells?` through the subscript would drop the key.)
      if let cells = known[example.key] {
        kept.updateValue(cells, forKey: example.key)
      } else if example.crop.isEmpty {
        missing.append(example.key)
      } else {
        // A crop that does not decode or split teaches nothing; it is not asked for again.
        let cells = (try? VisionImage(decoding: example.crop)).flatMap { try? engine!.learn($0, value: example.value) }
        kept.updateValue(cells, forKey: example.key)
      }
    }
    learnt[request.meter] = kept
    return (kept.values.compactMap { $0 }.reduce(LearntCells(), +), missing)
  }
}
