/// What a meter's confirmed readings tell the reader before it looks: how many digits the meter
/// shows. A meter whose confirmed values agree on a digit count is read with that count, as if
/// its settings gave it (``SequenceReader/read(_:digits:)``).
public struct MeterPrior: Hashable, Sendable {
  /// The digit count, or nil when the values do not agree on one.
  public var digits: Int?

  /// At least this many confirmed values before their count is trusted.
  public static let leastValues = 2

  /// The digit count that more than half of `values` have, when there are at least
  /// ``leastValues`` of them.
  public init(confirmed values: [String]) {
    let counts = values.map { $0.filter(\.isNumber).count }.filter { $0 > 0 }
    let tally = Dictionary(counts.map { ($0, 1) }, uniquingKeysWith: +)
    guard counts.count >= Self.leastValues, let (count, votes) = tally.max(by: { $0.value < $1.value }),
      votes * 2 > counts.count
    else {
      digits = nil
      return
    }
    digits = count
  }
}
