import PhotometerProtocol

/// What a read of a meter needs from the store (``MeterStore/readingContext(of:examples:)``).
public struct ReadingContext: Sendable {
  /// The meter, without its reference photos.
  public var meter: Meter
  /// Its latest confirmed readings that kept their crop, newest first, without the crops.
  public var examples: [Example]
  /// Its latest reading, by the time it was taken, without its crop and engine answers.
  public var latest: StoredReading?

  public init(meter: Meter, examples: [Example], latest: StoredReading?) {
    self.meter = meter
    self.examples = examples
    self.latest = latest
  }
}
