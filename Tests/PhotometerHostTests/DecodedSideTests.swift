import PhotometerProtocol
import Testing

@testable import PhotometerHost

/// How small a registered meter's photo is decoded: its window and dials keep the pixels they are
/// straightened to.
@Suite struct DecodedSideTests {
  static func meter(roi: Rect?, dials: [Rect] = [], referenceLonger: Int = 1000) -> Meter {
    Meter(
      name: "M", kind: .water, roi: roi,
      references: [ReferencePhoto(sha256: "a", width: referenceLonger, height: referenceLonger * 3 / 4, bytes: 1)],
      dials: dials.map { Dial(region: $0, factor: 0.1) })
  }

  static let request = ReadRequest(image: Image(data: []))

  @Test func aPhotoLargerThanItsWindowNeedsIsDecodedSmaller() {
    let window = Rect(x: 100, y: 100, width: 400, height: 150)
    // 4,000 pixels over a 1,000-pixel reference: the window is 600 pixels high in the photo,
    // over twice the 256 it keeps: a half.
    #expect(ReadPipeline.decodedSide(for: Self.meter(roi: window), request: Self.request, longerSide: 4000) == 2000)
    // Twice the window: a quarter; the same photo as the reference: whole.
    #expect(
      ReadPipeline.decodedSide(
        for: Self.meter(roi: Rect(x: 0, y: 0, width: 800, height: 300)), request: Self.request, longerSide: 4000)
        == 1000)
    #expect(ReadPipeline.decodedSide(for: Self.meter(roi: window), request: Self.request, longerSide: 1000) == 0)
    // Never below an eighth.
    #expect(
      ReadPipeline.decodedSide(
        for: Self.meter(roi: Rect(x: 0, y: 0, width: 900, height: 700)), request: Self.request, longerSide: 16000)
        == 2000)
  }

  @Test func theSmallestRegionDecides() {
    let window = Rect(x: 100, y: 100, width: 400, height: 300)
    let dials = [Rect(x: 100, y: 500, width: 100, height: 100), Rect(x: 300, y: 500, width: 100, height: 100)]
    // The dials' area is 100 reference pixels high, 400 in the photo: under twice the 256 kept.
    #expect(
      ReadPipeline.decodedSide(for: Self.meter(roi: window, dials: dials), request: Self.request, longerSide: 4000)
        == 0)
    #expect(
      ReadPipeline.decodedSide(for: Self.meter(roi: window, dials: dials), request: Self.request, longerSide: 8000)
        == 4000)
  }

  @Test func aWindowOrDialsOfTheRequestsOwnOrNoneAreDecodedWhole() {
    let meter = Self.meter(roi: Rect(x: 100, y: 100, width: 400, height: 100))
    var request = Self.request
    request.roi = Rect(x: 0, y: 0, width: 10, height: 10)
    #expect(ReadPipeline.decodedSide(for: meter, request: request, longerSide: 4000) == 0)
    #expect(ReadPipeline.decodedSide(for: Self.meter(roi: nil), request: Self.request, longerSide: 4000) == 0)
    #expect(ReadPipeline.decodedSide(for: nil, request: Self.request, longerSide: 4000) == 0)
    var unsized = meter
    unsized.references = []
    #expect(ReadPipeline.decodedSide(for: unsized, request: Self.request, longerSide: 4000) == 0)
  }
}
