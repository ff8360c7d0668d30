import PhotometerVision
import Synchronization

/// Reference photos decoded for locating meters, kept by SHA-256 between reads: a dial meter is
/// checked against its reference on every read, and a phone's 12-megapixel reference took about
/// 100 ms to decode and shrink each time. The few most recently used are kept (a household reads
/// its meters in turn); the key is the photo's content, so a changed reference is a new entry.
final class ReferencePhotos: Sendable {
  /// How many decoded references are kept: at most 2,000 pixels a side, under 12 MB each (a
  /// phone's 4,000-pixel JPEG: 1,000 pixels, 2.2 MB).
  static let capacity = 4

  private let entries = Mutex<[(sha256: String, image: VisionImage)]>([])

  /// The photo kept for `sha256`, now the most recently used; nil when none is.
  func kept(_ sha256: String) -> VisionImage? {
    entries.withLock { entries in
      guard let index = entries.firstIndex(where: { $0.sha256 == sha256 }) else { return nil }
      let entry = entries.remove(at: index)
      entries.insert(entry, at: 0)
      return entry.image
    }
  }

  /// Keeps `image` as the photo of `sha256` (nothing for an empty one), dropping the least
  /// recently used beyond ``capacity``.
  func keep(_ image: VisionImage, for sha256: String) {
    guard !sha256.isEmpty else { return }
    entries.withLock { entries in
      entries.removeAll { $0.sha256 == sha256 }
      entries.insert((sha256, image), at: 0)
      if entries.count > Self.capacity { entries.removeLast(entries.count - Self.capacity) }
    }
  }
}
