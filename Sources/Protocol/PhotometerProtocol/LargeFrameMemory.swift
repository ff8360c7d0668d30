import CPhotometerProtocol

/// Allocator settings for processes that pass images in frames.
public enum LargeFrameMemory {
  /// How much freed memory a process keeps for reuse, per malloc arena: enough for a few of the
  /// largest images.
  public static let retainedBytes = 64 << 20
  /// How many malloc arenas a process has at most, so that what it keeps stays bounded: each
  /// arena keeps up to ``retainedBytes``, and glibc would make up to 8 per core. The soak test saw
  /// hosts grow from 78 to 254 MiB over 10 minutes of reads with the default.
  public static let arenas: Int32 = 2

  /// Keeps freed memory for the next frame instead of giving it back to the system.
  ///
  /// Every message with an image allocates and frees a few blocks of the image's size. glibc's
  /// defaults return such blocks to the system at once (`madvise`) and fault them in again for the
  /// next message, which for a 1 MiB image cost four times the rest of the work (measured with the
  /// test plugin: 200 requests of 1 MiB in 0.55 s, and 0.07 s with this). Call it once at start-up.
  public static func keepFreedBlocks() {
    photometer_keep_freed_memory(retainedBytes, arenas)
  }
}
