import Foundation
import PhotometerProtocol
import Synchronization

/// A peer that writes raw bytes and collects every frame event it reads, for tests of what a
/// server does with malformed input.
public final class RawPeer: Sendable {
  private final class EventLog: Sendable {
    let events = Mutex<[FrameChannel.Event]>([])
  }

  private let log = EventLog()
  private let channel: FrameChannel

  /// Reads from `input` and writes to `output`; starts reading at once.
  public init(input: Int32, output: Int32) {
    channel = FrameChannel(input: input, output: output)
    channel.start { [log] event in
      log.events.withLock { $0.append(event) }
    }
  }

  public func write(_ bytes: [UInt8]) {
    try? channel.sendFrame(bytes)
  }

  public func send(_ envelope: Envelope) {
    write(envelope.framed())
  }

  public func closeOutput() {
    channel.closeOutput()
  }

  /// The envelopes read so far.
  public var envelopes: [Envelope] {
    log.events.withLock { events in
      events.compactMap { if case .envelope(let envelope) = $0 { envelope } else { nil } }
    }
  }

  /// How many frames arrived that were not messages.
  public var undecodableCount: Int {
    log.events.withLock { events in
      events.filter { if case .undecodable = $0 { true } else { false } }.count
    }
  }

  /// Whether the peer has closed its side (the reader saw the end of its input).
  public var isClosed: Bool {
    log.events.withLock { events in
      events.contains { if case .closed = $0 { true } else { false } }
    }
  }

  /// Waits until `count` replies to `requestID` have arrived (or `timeout` passed); returns
  /// their messages in order of arrival.
  public func replies(to requestID: UInt64, count: Int, timeout: Duration = eventLimit) async -> [Message] {
    let matching = { self.envelopes.filter { $0.requestID == requestID }.map(\.message) }
    _ = await eventually(timeout: timeout) { matching().count >= count }
    return matching()
  }

  /// Waits until `count` envelopes have arrived (or `timeout` passed) and returns them.
  public func envelopes(count: Int, timeout: Duration = eventLimit) async -> [Envelope] {
    _ = await eventually(timeout: timeout) { envelopes.count >= count }
    return envelopes
  }
}
