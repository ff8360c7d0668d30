import PhotometerProtocol

extension PluginSet {
  /// Reads the configuration again and applies it: plugins whose configuration is unchanged keep
  /// running; changed and removed ones are drained (their requests in flight finish on them) and
  /// stopped; changed and new ones are started.
  ///
  /// - Throws: the configuration error, naming the plugin and the field, when the file is wrong;
  ///   the plugins then stay as they were.
  /// - Returns: the plugins' statuses under the new configuration.
  public func reload() async throws(ErrorReply) -> [PluginStatus] {
    guard let source = reloadSource else {
      throw ErrorReply(.invalidRequest, "this host has no configuration file to reload")
    }
    let configurations: [PluginConfiguration]
    do {
      configurations = try source()
    } catch {
      logger.error("keeping the plugin configuration; the new one is wrong", metadata: ["reason": "\(error)"])
      throw ErrorReply(.invalidRequest, "\(error.message); the previous configuration stays in force")
    }
    let (started, retired) = replacePools(with: configurations)
    logger.info(
      "plugin configuration reloaded",
      metadata: [
        "started": "\(started.map(\.configuration.name))", "stopped": "\(retired.map(\.configuration.name))",
      ])
    // Retired pools finish their requests in flight in the background, then stop.
    Task { await Self.drainPools(retired) }
    await Self.startPools(started)
    return await statuses()
  }

  /// Swaps in pools for `configurations`, keeping each pool whose configuration is unchanged.
  /// Returns the new pools and the replaced or removed ones.
  private func replacePools(with configurations: [PluginConfiguration]) -> (
    started: [PluginPool], retired: [PluginPool]
  ) {
    let current = pools
    var kept: Set<ObjectIdentifier> = []
    var started: [PluginPool] = []
    let next = configurations.map { configuration in
      if let same = current.first(where: { $0.configuration == configuration }) {
        kept.insert(ObjectIdentifier(same))
        return same
      }
      let pool = makePool(configuration)
      started.append(pool)
      return pool
    }
    setPools(next)
    return (started, current.filter { !kept.contains(ObjectIdentifier($0)) })
  }
}
