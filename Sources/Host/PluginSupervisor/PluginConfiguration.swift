import Foundation
import PhotometerProtocol

/// One plugin as `plugins.json` describes it. docs/plugins.md documents the format.
public struct PluginConfiguration: Hashable, Sendable {
  /// Whether a plugin's answers count in the vote.
  public enum Mode: String, Hashable, Sendable, Codable {
    /// Its answers count.
    case vote
    /// It runs on the same requests and its answers are reported, but they do not count.
    case shadow
  }

  /// Unique among the file's plugins; used in logs, results and `photometer plugins`.
  public var name: String
  /// The program and its arguments, already resolved to an absolute program path.
  public var command: [String]
  /// Added to the host's environment for this plugin.
  public var environment: [String: String]
  /// The roles the plugin is expected to offer; its `Hello` must offer all of them.
  public var roles: [Role]
  public var enabled: Bool
  public var mode: Mode
  /// Its weight in the vote.
  public var weight: Double
  /// How long one request to it may take.
  public var timeout: Duration
  /// Passed to the plugin in the host's `Hello`.
  public var options: [String: String]
  /// How many processes of the plugin run, each serving one request at a time.
  public var instances: Int
  /// How many requests may wait for a free instance before more are refused as busy.
  public var maxQueued: Int
  /// The share of requests it takes, 0 to 1: below 1 it sits out the others (a canary roll-out
  /// of a new engine sees only part of the traffic).
  public var share: Double
  /// The SHA-256 (hex) the program must have; a program that differs is not started.
  public var sha256: String?
  /// The folder the plugin runs in: the configuration file's folder.
  public var directory: String

  public init(
    name: String,
    command: [String],
    environment: [String: String] = [:],
    roles: [Role],
    enabled: Bool = true,
    mode: Mode = .vote,
    weight: Double = 1,
    timeout: Duration = .seconds(30),
    options: [String: String] = [:],
    instances: Int = 1,
    maxQueued: Int = 64,
    share: Double = 1,
    sha256: String? = nil,
    directory: String = FileManager.default.currentDirectoryPath
  ) {
    self.name = name
    self.command = command
    self.environment = environment
    self.roles = roles
    self.enabled = enabled
    self.mode = mode
    self.weight = weight
    self.timeout = timeout
    self.options = options
    self.instances = instances
    self.maxQueued = maxQueued
    self.share = share
    self.sha256 = sha256
    self.directory = directory
  }
}
