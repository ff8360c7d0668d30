import PhotometerProtocol
import Testing

@Suite struct FrameDecoderTests {
  /// Frames of several sizes, including empty ones and one whose length takes two varint bytes.
  static let payloads: [[UInt8]] = [[], [1], Array(0..<200).map(UInt8.init), [], [9, 9, 9]]
  static let stream: [UInt8] = payloads.flatMap { Varint.encode(UInt64($0.count)) + $0 }

  private func decodeAll(_ chunks: [[UInt8]], maxFrameSize: Int = 1 << 20) throws -> [[UInt8]] {
    var decoder = FrameDecoder(maxFrameSize: maxFrameSize)
    var frames: [[UInt8]] = []
    for chunk in chunks {
      decoder.append(chunk)
      while let frame = try decoder.nextFrame() {
        frames.append(frame)
      }
    }
    try decoder.finish()
    return frames
  }

  @Test func splitsAStreamCutAtEveryByteBoundary() throws {
    for cut in 0...Self.stream.count {
      let chunks = [Array(Self.stream[..<cut]), Array(Self.stream[cut...])]
      #expect(try decodeAll(chunks) == Self.payloads, "cut at \(cut)")
    }
  }

  @Test(arguments: [1, 2, 3, 7, 64])
  func splitsAStreamFedInSmallChunks(size: Int) throws {
    let chunks = stride(from: 0, to: Self.stream.count, by: size).map {
      Array(Self.stream[$0..<min($0 + size, Self.stream.count)])
    }
    #expect(try decodeAll(chunks) == Self.payloads)
  }

  @Test func splitsAStreamCutAtEveryPairOfBoundaries() throws {
    for first in 0...Self.stream.count {
      for second in first...Self.stream.count {
        let chunks = [Array(Self.stream[..<first]), Array(Self.stream[first..<second]), Array(Self.stream[second...])]
        #expect(try decodeAll(chunks) == Self.payloads)
      }
    }
  }

  @Test func takesEmptyFrames() throws {
    #expect(try decodeAll([[0, 0, 0]]) == [[], [], []])
  }

  @Test func rejectsALengthOverTheLimitBeforeItsPayloadArrives() {
    var decoder = FrameDecoder(maxFrameSize: 100)
    decoder.append(Varint.encode(101))
    #expect(throws: FrameError.tooLarge(length: 101, limit: 100)) { try decoder.nextFrame() }
    // The decoder stays failed and keeps nothing.
    decoder.append([1, 2, 3])
    #expect(throws: FrameError.tooLarge(length: 101, limit: 100)) { try decoder.nextFrame() }
  }

  @Test func rejectsAnAbsurdLengthWithoutAllocatingIt() {
    var decoder = FrameDecoder()
    decoder.append(Varint.encode(UInt64.max))
    #expect(throws: FrameError.tooLarge(length: .max, limit: FrameDecoder.defaultMaxFrameSize)) {
      try decoder.nextFrame()
    }
    #expect(decoder.bufferedByteCount == 0)
  }

  @Test func acceptsAFrameOfExactlyTheLimit() throws {
    #expect(try decodeAll([Varint.encode(100) + [UInt8](repeating: 7, count: 100)], maxFrameSize: 100).count == 1)
  }

  @Test func rejectsAMalformedLength() {
    var decoder = FrameDecoder()
    decoder.append([UInt8](repeating: 0xFF, count: 11))
    #expect(throws: FrameError.malformedLength) { try decoder.nextFrame() }
  }

  @Test func reportsAStreamThatEndsInsideAFrame() throws {
    var decoder = FrameDecoder()
    decoder.append([5, 1, 2])
    #expect(try decoder.nextFrame() == nil)
    #expect(throws: FrameError.truncated(bufferedBytes: 3)) { try decoder.finish() }
  }

  @Test func reportsAStreamThatEndsInsideALength() throws {
    var decoder = FrameDecoder()
    decoder.append([0x80])
    #expect(try decoder.nextFrame() == nil)
    #expect(throws: FrameError.truncated(bufferedBytes: 1)) { try decoder.finish() }
  }

  @Test func decodesALargeFrameFedInPieces() throws {
    let payload = [UInt8](unsafeUninitializedCapacity: 3 << 20) { buffer, count in
      for index in buffer.indices {
        buffer[index] = UInt8(truncatingIfNeeded: index)
      }
      count = buffer.count
    }
    let bytes = Varint.encode(UInt64(payload.count)) + payload
    let chunks = stride(from: 0, to: bytes.count, by: 65_536).map { Array(bytes[$0..<min($0 + 65_536, bytes.count)]) }
    #expect(try decodeAll(chunks, maxFrameSize: 4 << 20) == [payload])
  }
}
