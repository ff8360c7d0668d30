import PhotometerProtocol
import PhotometerVision
import PluginKit

/// Reads a request's ``ReadRequest/dials`` in its image with ``PointerDial``, all together (one
/// meter's dials, turned alike in the photo): one symbol a dial, in the request's order, its text
/// the digit the pointer has passed, its roll how far past (4.7 is "4" rolled 0.7 towards 5), its
/// box the dial's region. The reading's text is the digits in order, its confidence the weakest
/// dial's.
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
    let placements = request.dials.map {
      PointerDial.Placement(region: $0.region, counterClockwise: $0.counterClockwise)
    }
    let pointers: [PointerDial]
    do {
      pointers = try PointerDial.read(placements, in: image)
    } catch {
      let regions = request.dials.map { "\($0.region)" }.joined(separator: ", ")
      throw ErrorReply(
        .invalidRequest, "the dials (\(regions)) cannot be read in the \(image.width)x\(image.height) photo: \(error)")
    }
    let symbols = zip(request.dials, pointers).map { dial, pointer in
      let digit = min(9, Int(pointer.value))
      let fraction = pointer.value - Double(digit)
      return Symbol(
        text: String(digit), confidence: pointer.confidence, box: dial.region,
        roll: fraction > 0 ? WheelRoll(from: String(digit), fraction: fraction) : nil)
    }
    return EngineReading(
      text: symbols.map(\.text).joined(), confidence: symbols.map(\.confidence).min() ?? 0, symbols: symbols)
  }
}
