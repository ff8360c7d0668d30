/// A condition of a reading that a client should show (``ReadResult/flags``).
///
/// An open set, as on the wire: a newer host may send a flag this client has no name for, and it
/// keeps its text. The host sets only the named ones.
public struct ReadFlag: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public let rawValue: String

  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  public var description: String { rawValue }

  /// No voting engine produced a reading.
  public static let noReading = ReadFlag(rawValue: "no-reading")
  /// At least one engine failed (an error, a timeout, a crash).
  public static let engineFailed = ReadFlag(rawValue: "engine-failed")
  /// The voting engines read different digits.
  public static let enginesDisagree = ReadFlag(rawValue: "engines-disagree")
  /// The reading's confidence is under the vote's threshold.
  public static let lowConfidence = ReadFlag(rawValue: "low-confidence")
  /// The value was implausible for the meter and a likelier plausible one was taken.
  public static let repaired = ReadFlag(rawValue: "repaired")
  /// The value is implausible for the meter (and could not be repaired), or, with no meter, for
  /// the kind the request named.
  public static let implausible = ReadFlag(rawValue: "implausible")
  /// The photo or its digit window is too small to read.
  public static let tooSmall = ReadFlag(rawValue: "too-small")
  /// The digit window is blurred.
  public static let blur = ReadFlag(rawValue: "blur")
  /// The digit window has glare.
  public static let glare = ReadFlag(rawValue: "glare")
  /// The meter's reference was not found in the photo: its window was used as it is.
  public static let meterNotLocated = ReadFlag(rawValue: "meter-not-located")
  /// The identify plugins' vote did not find the meter in the photo; the reference's face did (its
  /// dials, or a plugin's weaker match refined from the whole face). The photo shows a meter of its
  /// model, taken to be the one the request named.
  public static let locatedByFace = ReadFlag(rawValue: "located-by-face")
  /// The meter's pointer dials could not be read (no dials plugin answered, or the wheels gave no
  /// digits to join them to): the value stops at the wheels.
  public static let dialsNotRead = ReadFlag(rawValue: "dials-not-read")
}
