import PhotometerClient
import TestSupport

/// A `photometer-host` process on a fresh database, serving the single plugin `name` (a command
/// and its role), logging only what is critical.
func launchHost(withPlugin name: String, command: String, role: String) async throws -> HostClient {
  let plugins = try writePluginsFile(
    """
    {"plugins": [{"name": "\(name)", "command": ["\(command)"], "roles": ["\(role)"]}]}
    """)
  return try await HostClient.launch(
    executable: Products.executable("photometer-host"),
    arguments: ["--db", temporaryDatabasePath(), "--plugins", plugins, "--log-level", "critical"])
}
