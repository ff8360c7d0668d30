import ChildProcess
import Foundation

extension HostClient {
  /// The `photometer-host` installed beside this executable, on the plugins file `plugins` and the
  /// store `database`, logging errors only: how the benchmarks run the host they measure.
  public static func launchSibling(plugins: String, database: String) async throws -> HostClient {
    try await launch(
      executable: "\(ChildProcess.executableFolder)/photometer-host",
      arguments: ["--plugins", plugins, "--db", database, "--log-level", "error"])
  }
}
