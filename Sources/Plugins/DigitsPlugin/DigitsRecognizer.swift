import DigitTemplates
import Foundation
import PhotometerProtocol
import PhotometerVision
import PluginKit

/// The template OCR as a read plugin. Option `templates`: a template file to use instead of the
/// bundled one. The request's `digits`, when set, fixes the number of cells.
struct DigitsRecognizer: Recognizer {
  static let acceptedOptions = [
    OptionSpec(name: "templates", description: "template file from `photometer-digits train`", defaultValue: "")
  ]

  let roles: [Role] = [.read]
  private var engine: TemplateEngine?

  mutating func handshake(_ host: Hello) throws(ErrorReply) -> Hello {
    do {
      let path = host.options["templates"] ?? ""
      let templates =
        try path.isEmpty ? DigitTemplates.bundled() : DigitTemplates(contentsOf: URL(fileURLWithPath: path))
      engine = TemplateEngine(templates: templates)
      return Hello(
        name: "photometer-digits", softwareVersion: "1.0.0", acceptedOptions: Self.acceptedOptions,
        details: ["engine": "templates", "templates": "\(templates.count)"])
    } catch {
      throw ErrorReply(.invalidRequest, "cannot load the digit templates: \(error)")
    }
  }

  mutating func read(_ request: ReadRequest) throws(ErrorReply) -> EngineReading {
    let crop = try DigitCrop.decode(request)
    do {
      return try engine!.read(crop, expected: Int(request.digits))
    } catch {
      throw ErrorReply(.internal, "reading failed: \(error)")
    }
  }
}
