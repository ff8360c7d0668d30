// Feeds the frame decoder arbitrary bytes in arbitrary chunks: it must return frames or throw,
// never crash, and never keep more than a frame's worth of bytes.
import PhotometerProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrames(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
  guard let first = bytes.first else { return 0 }
  // The first byte chooses the chunk size, so that the fuzzer explores the splits too.
  let chunk = Int(first % 17) + 1
  var decoder = FrameDecoder(maxFrameSize: 4096)
  var offset = 1
  while offset < bytes.count {
    decoder.append(bytes[offset..<min(offset + chunk, bytes.count)])
    offset += chunk
    do {
      while let frame = try decoder.nextFrame() {
        precondition(frame.count <= 4096, "a frame over the limit came out")
        _ = try? Envelope(serialized: frame)
      }
    } catch {
      return 0
    }
    precondition(decoder.bufferedByteCount <= 4096 + Varint.maxLength, "the decoder kept more than a frame")
  }
  _ = try? decoder.finish()
  return 0
}
