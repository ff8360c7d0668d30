import PhotometerProtocol

/// The reference lists a plugin keeps under the names the host gives them
/// (``IdentifyRequest/referenceSet``), so a household of 10,000 meters crosses the pipe once and
/// each later identify carries only its name.
///
/// Keeps the last ``capacity`` lists used, so a household changed and changed back (a meter
/// added, then removed) is not sent again. Lists are kept without their images.
struct ReferenceSets {
  /// How many lists are kept at most; the least recently used goes first.
  static let capacity = 4

  private var kept: [(name: String, references: [Reference])] = []

  /// `request` with the references its set stands for, keeping them when they came with it; `nil`
  /// when it names a set without its references and none is kept under that name.
  mutating func resolve(_ request: IdentifyRequest) -> IdentifyRequest? {
    guard !request.referenceSet.isEmpty else {
      return request
    }
    guard request.references.isEmpty else {
      kept.removeAll { $0.name == request.referenceSet }
      keep(request.referenceSet, request.references)
      return request
    }
    guard let index = kept.firstIndex(where: { $0.name == request.referenceSet }) else {
      return nil
    }
    let list = kept.remove(at: index)
    kept.append(list)
    var resolved = request
    resolved.references = list.references
    return resolved
  }

  private mutating func keep(_ name: String, _ references: [Reference]) {
    let bare = references.map { reference in
      var reference = reference
      reference.image.data = []
      return reference
    }
    kept.append((name, bare))
    if kept.count > Self.capacity {
      kept.removeFirst()
    }
  }
}
