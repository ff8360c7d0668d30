import ChildProcess
import Foundation
import PhotometerStore

/// Where the host finds its files when not told.
public enum HostDefaults {
  /// `$XDG_CONFIG_HOME/photometer/plugins.json` when that file exists; otherwise the nearest
  /// `plugins.json` in the executable's folder or above it (the repository's, for a build in
  /// `.build`); otherwise the XDG path, which then fails to load with a clear message.
  public static var pluginsFile: String {
    let environment = ProcessInfo.processInfo.environment
    let configHome = environment["XDG_CONFIG_HOME"] ?? "\(NSHomeDirectory())/.config"
    let configured = "\(configHome)/photometer/plugins.json"
    if FileManager.default.fileExists(atPath: configured) {
      return configured
    }
    var folder = URL(fileURLWithPath: ChildProcess.executableFolder)
    for _ in 0..<4 {
      let candidate = folder.appendingPathComponent("plugins.json").path
      if FileManager.default.fileExists(atPath: candidate) {
        return candidate
      }
      folder.deleteLastPathComponent()
    }
    return configured
  }

  /// `$XDG_DATA_HOME/photometer/photometer.sqlite`, by default
  /// `~/.local/share/photometer/photometer.sqlite`.
  public static var databaseFile: String { MeterStore.defaultPath }
}
