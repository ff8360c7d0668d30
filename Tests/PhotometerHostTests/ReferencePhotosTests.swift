import PhotometerVision
import Testing

@testable import PhotometerHost

@Suite struct ReferencePhotosTests {
  static func image() throws -> VisionImage {
    try VisionImage(pixels: [UInt8](repeating: 128, count: 4 * 4 * 3), width: 4, height: 4, channels: 3)
  }

  @Test func keepsTheMostRecentlyUsedByTheirContent() throws {
    let photos = ReferencePhotos()
    #expect(photos.kept("a") == nil)
    let first = try Self.image()
    photos.keep(first, for: "a")
    #expect(photos.kept("a") === first)
    // Filled past capacity, the least recently used goes; "a", used again, stays.
    for index in 1..<ReferencePhotos.capacity {
      photos.keep(try Self.image(), for: "b\(index)")
    }
    #expect(photos.kept("a") === first)
    photos.keep(try Self.image(), for: "c")
    #expect(photos.kept("a") === first)
    #expect(photos.kept("b1") == nil)
    // A photo without a digest is never kept.
    photos.keep(try Self.image(), for: "")
    #expect(photos.kept("") == nil)
  }
}
