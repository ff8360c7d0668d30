import PhotometerClient
import TestSupport

/// A `photometer-host` process on a fresh database, serving the single plugin `name` (a command
/// and its role), logging only what is critical; the plugin keeps its caches in the test
/// process's scratch folder (``Products/scratchCaches``), not in the machine's.
func launchHost(
  withPlugin name: String, command: String, role: String, options: [String: String] = [:]
) async throws -> HostClient {
  let settings = options.map { "\"\($0.key)\": \"\($0.value)\"" }.sorted().joined(separator: ", ")
  let plugins = try writePluginsFile(
    """
    {"plugins": [{"name": "\(name)", "command": ["\(command)"], "roles": ["\(role)"], "options": {\(settings)},
      "env": {"XDG_CACHE_HOME": "\(Products.scratchCaches)"}}]}
    """)
  return try await HostClient.launch(
    executable: Products.executable("photometer-host"),
    arguments: ["--db", temporaryDatabasePath(), "--plugins", plugins, "--log-level", "critical"])
}
