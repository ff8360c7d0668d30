import PhotometerProtocol
import PhotometerVision
import PluginKit

/// Reads each of a request's ``ReadRequest/dials`` in its image with ``PointerDial``: one symbol a
/// dial, in the request's order, its text the digit the pointer has passed, its roll how far past
/// (4.7 is "4" rolled 0.7 towards 5), its box the dial's region. The reading's text is the digits
/// in order, its confidence the weakest dial's.
struct DialsRecognizer: Recognizer {
  let roles: [Role] = [.dials]

  mutating func handshake(_ host: Hello) throws(ErrorReply) -> Hello {
    Hello(
      name: "photometer-dials", softwareVersion: "1.0.0",
      details: ["engine": "pointer geometry (OpenCV): colour distance from the face, pointer ray and middle line"])
  }

  mutating func read(_ request: ReadRequest) throws(ErrorReply) -> EngineReading {
    guard !request.dials.isEmpty else {
      throw ErrorReply(.invalidRequest, "no dials to read: a dials request lists each dial's region in `dials`")
    }
    let image: VisionImage
    do {
      image = try VisionImage(decoding: request.image.data)
    } catch {
      throw ErrorReply(.badImage, "the photo does not decode: \(error)")
    }
    var symbols: [Symbol] = []
    for (index, dial) in request.dials.enumerated() {
      let region = dial.region
      let pointer: PointerDial
      do {
        pointer = try PointerDial(in: image, region: region, counterClockwise: dial.counterClockwise)
      } catch {
        throw ErrorReply(
          .invalidRequest,
          "dial \(index + 1) (\(region)) cannot be read in the \(image.width)x\(image.height) photo: \(error)")
      }
      let digit = min(9, Int(pointer.value))
      let fraction = pointer.value - Double(digit)
      symbols.append(
        Symbol(
          text: String(digit), confidence: pointer.confidence, box: region,
          roll: fraction > 0 ? WheelRoll(from: String(digit), fraction: fraction) : nil))
    }
    return EngineReading(
      text: symbols.map(\.text).joined(), confidence: symbols.map(\.confidence).min() ?? 0, symbols: symbols)
  }
}
