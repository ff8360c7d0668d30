/// One plugin's part in a host result: what it answered, or why it has no answer.
public struct PluginAnswer<Value: Hashable & Sendable>: Hashable, Sendable {
  /// The plugin's configured name.
  public var plugin: String
  /// The version the plugin gave in its `Hello`, or empty if it never started.
  public var version: String
  public var outcome: Result<Value, ErrorReply>
  /// How long the plugin took to answer.
  public var milliseconds: Double
  /// False for shadow plugins, whose answers are reported but do not count in the vote.
  public var voted: Bool

  public init(plugin: String, version: String, outcome: Result<Value, ErrorReply>, milliseconds: Double, voted: Bool) {
    self.plugin = plugin
    self.version = version
    self.outcome = outcome
    self.milliseconds = milliseconds
    self.voted = voted
  }

  /// The answer, or `nil` when the plugin failed.
  public var value: Value? {
    try? outcome.get()
  }
}
