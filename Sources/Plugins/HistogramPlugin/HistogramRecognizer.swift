import MeterMatchers
import PhotometerProtocol
import PhotometerVision
import PluginKit

/// The histogram matcher as a plugin. Option `mode`: `robust` (default) or `seed`, the reference
/// application's method kept for comparison; `cache`: where learnt references are kept across
/// restarts (``ReferenceCache``; `none`: nowhere).
struct HistogramRecognizer: Recognizer {
  static let acceptedOptions = [
    OptionSpec(
      name: "mode", description: "robust (illumination-normalised) or seed (HSV 50 x 60, four measures voting)",
      defaultValue: "robust"),
    ReferenceCache.option("histograms"),
  ]

  let roles: [Role] = [.identify]
  private var matcher = HistogramMatcher(mode: .robust)

  mutating func handshake(_ host: Hello) throws(ErrorReply) -> Hello {
    let name = host.options["mode"] ?? "robust"
    guard let mode = ColourHistogram.Mode(rawValue: name) else {
      throw ErrorReply(.invalidRequest, "mode must be robust or seed, not '\(name)'")
    }
    let cache = ReferenceCache.open(option: host.options["cache"], name: "histograms")
    matcher = HistogramMatcher(mode: mode, cache: cache)
    return Hello(
      name: "photometer-histogram", softwareVersion: "1.0.0", acceptedOptions: Self.acceptedOptions,
      details: ["engine": "opencv", "mode": mode.rawValue, "cache": cache?.path ?? "none"])
  }

  mutating func identify(_ request: IdentifyRequest) throws(ErrorReply) -> PluginCandidates {
    try ReferenceIntake.identify(request, with: &matcher)
  }
}
