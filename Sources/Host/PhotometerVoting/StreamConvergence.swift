/// Frames of one live display: when has the value converged?
///
/// Each frame's voted value joins its stream; the stream is final once its last
/// ``framesToConverge`` values are the same, non-empty, and each at least ``minimumConfidence``.
/// A final stream starts over with its next frame. At most ``maxStreams`` streams are kept; the
/// least recently seen goes first.
public struct StreamConvergence: Sendable {
  public static let framesToConverge = 3
  public static let minimumConfidence = 0.5
  public static let maxStreams = 64

  private struct Stream {
    var frames: UInt32 = 0
    var recent: [String] = []
    var lastSeen: UInt64 = 0
  }

  private var streams: [String: Stream] = [:]
  private var clock: UInt64 = 0

  public init() {}

  /// Adds a frame's value; returns the stream's frame count and whether it has converged.
  public mutating func observe(_ stream: String, value: String, confidence: Double) -> (
    frames: UInt32, isFinal: Bool
  ) {
    clock += 1
    var entry = streams[stream] ?? Stream()
    entry.frames += 1
    entry.lastSeen = clock
    let trusted = !value.isEmpty && confidence >= Self.minimumConfidence
    entry.recent = trusted ? Array((entry.recent + [value]).suffix(Self.framesToConverge)) : []
    let isFinal = entry.recent.count == Self.framesToConverge && Set(entry.recent).count == 1
    if isFinal {
      streams[stream] = nil
    } else {
      streams[stream] = entry
      if streams.count > Self.maxStreams, let oldest = streams.min(by: { $0.value.lastSeen < $1.value.lastSeen }) {
        streams[oldest.key] = nil
      }
    }
    return (entry.frames, isFinal)
  }
}
