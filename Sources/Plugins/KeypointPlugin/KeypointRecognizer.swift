import MeterMatchers
import PhotometerProtocol
import PhotometerVision
import PluginKit

/// The keypoint matcher as a plugin. Its candidates carry the meter's outline in the photo and
/// the homography from the reference, which the host uses to find the digits.
struct KeypointRecognizer: Recognizer {
  static let acceptedOptions = [
    OptionSpec(name: "features", description: "ORB keypoints per photo", defaultValue: "1200"),
    OptionSpec(name: "verify", description: "references checked with a homography per query", defaultValue: "8"),
    OptionSpec(name: "threads", description: "threads a query's matching shares", defaultValue: "2"),
    ReferenceCache.option("keypoints"),
  ]

  let roles: [Role] = [.identify]
  private var matcher = KeypointMatcher()

  mutating func handshake(_ host: Hello) throws(ErrorReply) -> Hello {
    var settings = KeypointMatcher.Settings()
    settings.features = try host.number(
      "features", in: 50...10_000, fallback: settings.features, expected: "a whole number from 50 to 10000")
    settings.verify = try host.number(
      "verify", in: 1...100, fallback: settings.verify, expected: "a whole number from 1 to 100")
    settings.threads = try host.number(
      "threads", in: 1...16, fallback: settings.threads, expected: "a whole number from 1 to 16")
    settings.cache = ReferenceCache.open(option: host.options["cache"], name: "keypoints")
    matcher = KeypointMatcher(settings: settings)
    return Hello(
      name: "photometer-keypoints", softwareVersion: "1.0.0", acceptedOptions: Self.acceptedOptions,
      details: [
        "engine": "opencv-orb", "features": "\(settings.features)", "cache": settings.cache?.path ?? "none",
      ])
  }

  mutating func identify(_ request: IdentifyRequest) throws(ErrorReply) -> PluginCandidates {
    try ReferenceIntake.identify(request, with: &matcher)
  }
}
