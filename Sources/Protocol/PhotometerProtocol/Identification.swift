/// A registered meter's reference photo.
public struct Reference: Hashable, Sendable {
  public var meter: String
  public var image: Image
  /// Lower-case hex SHA-256 of the image data, so plugins can cache what they derive from it.
  public var sha256: String
  /// The part of the reference photo that is surely the meter: for a registered meter, the box
  /// around its digit window and its pointer dials.
  public var roi: Rect?

  public init(meter: String, image: Image, sha256: String, roi: Rect? = nil) {
    self.meter = meter
    self.image = image
    self.sha256 = sha256
    self.roi = roi
  }
}

/// Which meter is this? From a client to the host, and from the host to each identify plugin.
public struct IdentifyRequest: Hashable, Sendable {
  public var image: Image
  /// The meters to choose from.
  public var references: [Reference]
  /// A name for ``references`` (their meters, SHA-256s and ROIs, in order), empty for none. Sent
  /// alone, it stands for the list a plugin kept under it (``ReferenceSets``).
  public var referenceSet: String

  public init(image: Image, references: [Reference], referenceSet: String = "") {
    self.image = image
    self.references = references
    self.referenceSet = referenceSet
  }
}

/// A meter a photo may show, with how strongly a plugin (or the vote) believes it.
public struct Candidate: Hashable, Sendable {
  public var meter: String
  /// The plugin's own score, higher is better.
  public var score: Double
  /// Calibrated belief, 0 to 1.
  public var confidence: Double
  /// The meter's four corners in the query photo, when located.
  public var outline: [Point]
  /// Row-major 3 x 3 homography from reference pixels to query pixels, when known.
  public var homography: [Double]
  /// The meter's dominant colour, `#rrggbb`, when known.
  public var colour: String

  public init(
    meter: String, score: Double, confidence: Double, outline: [Point] = [], homography: [Double] = [],
    colour: String = ""
  ) {
    self.meter = meter
    self.score = score
    self.confidence = confidence
    self.outline = outline
    self.homography = homography
    self.colour = colour
  }
}

/// An identify plugin's answer: its candidates, and the references it needs to see first.
public struct PluginCandidates: Hashable, Sendable {
  /// Best first.
  public var candidates: [Candidate]
  /// SHA-256 of references that came without an image and are not in the plugin's cache.
  public var missingReferences: [String]
  /// The request named a reference set without its references, and the plugin does not keep it.
  public var unknownReferenceSet: Bool

  public init(_ candidates: [Candidate], missingReferences: [String] = [], unknownReferenceSet: Bool = false) {
    self.candidates = candidates
    self.missingReferences = missingReferences
    self.unknownReferenceSet = unknownReferenceSet
  }
}

/// One identify plugin's part in an ``IdentifyResult``: its candidates, or why it has none.
public typealias PluginIdentification = PluginAnswer<[Candidate]>

/// The host's answer to an ``IdentifyRequest``.
public struct IdentifyResult: Hashable, Sendable {
  /// The voted meter, empty when the photo shows none the plugins recognise.
  public var meter: String
  public var confidence: Double
  /// The combined ranking, best first.
  public var candidates: [Candidate]
  public var plugins: [PluginIdentification]
  public var summary: String
  /// The identified meter's outline in the photo and homography from its reference, when known.
  public var outline: [Point]
  public var homography: [Double]
  /// The identified meter's dominant colour, `#rrggbb`, when known.
  public var colour: String

  public init(
    meter: String,
    confidence: Double,
    candidates: [Candidate],
    plugins: [PluginIdentification],
    summary: String,
    outline: [Point] = [],
    homography: [Double] = [],
    colour: String = ""
  ) {
    self.meter = meter
    self.confidence = confidence
    self.candidates = candidates
    self.plugins = plugins
    self.summary = summary
    self.outline = outline
    self.homography = homography
    self.colour = colour
  }
}

/// A configured plugin as the host sees it.
public struct PluginStatus: Hashable, Sendable {
  public var name: String
  public var state: PluginState
  /// The pids of the running instances.
  public var pids: [Int32]
  public var roles: [Role]
  public var version: String
  /// `vote` or `shadow`.
  public var mode: String
  /// The configured pool size.
  public var instances: UInt32
  public var restarts: UInt64
  public var requests: UInt64
  public var errors: UInt64
  public var timeouts: UInt64
  /// Requests waiting for a free instance.
  public var queued: UInt32
  public var medianMilliseconds: Double
  public var p95Milliseconds: Double
  /// Why the plugin is stopped, failed, restarting or quarantined.
  public var reason: String

  public init(
    name: String,
    state: PluginState,
    pids: [Int32] = [],
    roles: [Role] = [],
    version: String = "",
    mode: String = "vote",
    instances: UInt32 = 1,
    restarts: UInt64 = 0,
    requests: UInt64 = 0,
    errors: UInt64 = 0,
    timeouts: UInt64 = 0,
    queued: UInt32 = 0,
    medianMilliseconds: Double = 0,
    p95Milliseconds: Double = 0,
    reason: String = ""
  ) {
    self.name = name
    self.state = state
    self.pids = pids
    self.roles = roles
    self.version = version
    self.mode = mode
    self.instances = instances
    self.restarts = restarts
    self.requests = requests
    self.errors = errors
    self.timeouts = timeouts
    self.queued = queued
    self.medianMilliseconds = medianMilliseconds
    self.p95Milliseconds = p95Milliseconds
    self.reason = reason
  }
}
