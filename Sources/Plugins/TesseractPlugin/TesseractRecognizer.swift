import PhotometerProtocol
import PhotometerVision
import PluginKit
import TesseractEngine

/// Tesseract as a read plugin. Option `language` (default `eng`); the request's ROI, when given,
/// is read, else the whole image.
struct TesseractRecognizer: Recognizer {
  static let acceptedOptions = [
    OptionSpec(name: "language", description: "Tesseract language data to load", defaultValue: "eng")
  ]

  let roles: [Role] = [.read]
  private var engine: TesseractEngine?

  mutating func handshake(_ host: Hello) throws(ErrorReply) -> Hello {
    let language = host.options["language"] ?? "eng"
    let engine = try TesseractEngine(language: language)
    self.engine = engine
    return Hello(
      name: "photometer-tesseract", softwareVersion: "1.0.0", acceptedOptions: Self.acceptedOptions,
      details: ["engine": "tesseract", "engine_version": engine.version, "language": language])
  }

  mutating func read(_ request: ReadRequest) throws(ErrorReply) -> EngineReading {
    let crop = try DigitCrop.decode(request)
    do {
      return try engine!.read(crop)
    } catch {
      throw ErrorReply(.internal, "reading failed: \(error)")
    }
  }
}
