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
  ]

  let roles: [Role] = [.identify]
  private var matcher = KeypointMatcher()

  mutating func handshake(_ host: Hello) throws(ErrorReply) -> Hello {
    var settings = KeypointMatcher.Settings()
    settings.features = try Self.number(host.options, "features", default: settings.features, in: 50...10_000)
    settings.verify = try Self.number(host.options, "verify", default: settings.verify, in: 1...100)
    settings.threads = try Self.number(host.options, "threads", default: settings.threads, in: 1...16)
    matcher = KeypointMatcher(settings: settings)
    return Hello(
      name: "photometer-keypoints", softwareVersion: "1.0.0", acceptedOptions: Self.acceptedOptions,
      details: ["engine": "opencv-orb", "features": "\(settings.features)"])
  }

  private static func number(
    _ options: [String: String], _ name: String, default value: Int, in range: ClosedRange<Int>
  ) throws(ErrorReply) -> Int {
    guard let text = options[name] else { return value }
    guard let number = Int(text), range.contains(number) else {
      throw ErrorReply(
        .invalidRequest, "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
    }
    return number
  }

  mutating func identify(_ request: IdentifyRequest) throws(ErrorReply) -> PluginCandidates {
    try ReferenceIntake.identify(request, with: &matcher)
  }
}
