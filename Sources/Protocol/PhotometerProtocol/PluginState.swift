/// What a configured plugin is doing (``PluginStatus/state``); an open set on the wire, as
/// ``ReadFlag`` is.
public struct PluginState: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public let rawValue: String

  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  public var description: String { rawValue }

  /// Being spawned, or its handshake is under way.
  public static let starting = PluginState(rawValue: "starting")
  /// Running, with an instance free for a request.
  public static let ready = PluginState(rawValue: "ready")
  /// Running, every instance serving a request.
  public static let busy = PluginState(rawValue: "busy")
  /// Waiting out the back-off after a crash before it is spawned again.
  public static let restarting = PluginState(rawValue: "restarting")
  /// Crashed too often too fast: not spawned again until its configuration changes.
  public static let quarantined = PluginState(rawValue: "quarantined")
  /// Could not be started (a missing program, a refused handshake).
  public static let failed = PluginState(rawValue: "failed")
  /// Stopped by the host.
  public static let stopped = PluginState(rawValue: "stopped")
  /// Turned off in plugins.json.
  public static let disabled = PluginState(rawValue: "disabled")
}
