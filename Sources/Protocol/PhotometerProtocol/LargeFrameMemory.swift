import CPhotometerProtocol

/// Allocator settings for processes that pass images in frames.
public enum LargeFrameMemory {
  /// How much freed memory a process keeps for reuse: enough for a few of the largest images.
  public static let retainedBytes = 64 << 20

  /// Keeps freed memory for the next frame instead of giving it back to the system.
  ///
  /// Every message with an image allocates and frees a few blocks of the image's size. glibc's
  /// defaults return such blocks to the system at once (`madvise`) and fault them in again for the
  /// next message, which for a 1 MiB image cost four times the rest of the work (measured with the
  /// test plugin: 200 requests of 1 MiB in 0.55 s, and 0.07 s with this). Call it once at start-up.
  public static func keepFreedBlocks() {
    photometer_keep_freed_memory(retainedBytes)
  }
}
