import PhotometerProtocol
import Testing

@Suite struct VarintTests {
  @Test(arguments: [0, 1, 127, 128, 300, 16_383, 16_384, UInt64(UInt32.max), UInt64.max])
  func roundTrips(value: UInt64) {
    let bytes = Varint.encode(value)
    #expect(Varint.parse(bytes) == .value(value, length: bytes.count))
  }

  @Test func encodesLikeProtobuf() {
    #expect(Varint.encode(300) == [0xAC, 0x02])
    #expect(Varint.encode(UInt64.max).count == Varint.maxLength)
  }

  @Test func reportsIncompleteInput() {
    #expect(Varint.parse([]) == .incomplete)
    #expect(Varint.parse([0x80, 0x80]) == .incomplete)
  }

  @Test func rejectsOverlongAndOverflowingEncodings() {
    #expect(Varint.parse([UInt8](repeating: 0x80, count: 10) + [0x01]) == .malformed)
    #expect(Varint.parse([UInt8](repeating: 0xFF, count: 9) + [0x02]) == .malformed)
  }
}
