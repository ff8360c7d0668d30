// Decodes arbitrary bytes as an envelope: it must decode or throw, never crash; what decodes must
// encode, decode and encode again to the same bytes. (Bytes, not values: a peer may send a NaN
// confidence, which equals nothing, itself included.)
import PhotometerProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEnvelope(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
  guard let envelope = try? Envelope(serialized: bytes) else { return 0 }
  let encoded = envelope.serialized()
  let again = try? Envelope(serialized: encoded)
  precondition(again?.serialized() == encoded, "an envelope did not survive encoding: \(envelope)")
  return 0
}
