import Foundation

/// What a meter's confirmed readings taught the reader: for every digit read in their crops, the
/// cell classifier's features (its penultimate layer) and the digit the user confirmed there.
///
/// A digit of a later photo that goes to the classifier is compared with them: cosine similarity,
/// a softmax at ``temperature`` over the exemplars, summed per digit. That opinion is pooled
/// geometrically (the reader's `memoryShare` its weight, ``defaultShare`` unless set) with the reader's and
/// classifier's, over the digits the memory holds exemplars of and within their share of the
/// probability: a digit the meter never
/// showed keeps its own. A meter whose 6s the networks take for 0s reads them as the 6s it has
/// been told they are. Temperature and share were fixed on meterdigits' development meters and
/// rendered faces no network trains on (docs/recognizers.md, *Learning from confirmed readings*).
/// Each exemplar also keeps what the reader had read there, so that a mistake the meter's
/// readings repeat is corrected (``mistaken(_:features:)``).
public struct DigitMemory: Sendable {
  public static let temperature = 0.1
  /// The memory's weight in the pool (0 to 1; 0: it changes nothing) unless the reader is given another.
  public static let defaultShare = 0.3

  struct Exemplar: Sendable {
    /// Of unit length.
    var features: [Float]
    var digit: Int
    /// The digit the reader read there before the user confirmed ``digit``; nil when unknown.
    var read: Int?
  }

  private(set) var exemplars: [Exemplar] = []

  public init() {}

  public var isEmpty: Bool { exemplars.isEmpty }
  public var count: Int { exemplars.count }

  /// Remembers that a cell with `features` showed `digit` (0-9), where the reader had `read`
  /// (nil: not known); a cell without features (a classifier that has none) teaches nothing.
  public mutating func add(features: [Float], digit: Int, read: Int? = nil) {
    guard (0...9).contains(digit), let unit = Self.unit(features) else { return }
    exemplars.append(Exemplar(features: unit, digit: digit, read: read))
  }

  /// How many of a meter's confirmed digits must show one mistake (read as one digit, confirmed
  /// as another) before ``mistaken(_:features:)`` corrects it: a wheel confirmed mid-roll as the
  /// digit it was turning to is one such pair on its own, and once was enough to turn settled
  /// digits of meterdigits' learning meters (docs/recognizers.md, R116).
  public static let mistakeSeen = 2

  /// The digits ``mistaken(_:features:)`` may correct: each read by the reader where the user
  /// confirmed another digit in at least ``mistakeSeen`` of the meter's confirmed digits, and
  /// confirmed itself elsewhere. Worth the classifier's look however sure the reader is of them:
  /// a design it never learnt it often reads wrong at 0.999 (docs/recognizers.md, R120).
  public var mistakenReads: Set<Int> {
    Set((0...9).filter { !repeatedMistakes(read: $0).isEmpty })
  }

  /// The digits the user confirmed, in at least ``mistakeSeen`` of the meter's confirmed digits
  /// each, where the reader had read `read`; none when the meter never showed a `read` (it cannot
  /// tell one from the mistake, R119).
  private func repeatedMistakes(read: Int) -> Set<Int> {
    guard exemplars.contains(where: { $0.digit == read }) else { return [] }
    var counts = [Int: Int]()
    for exemplar in exemplars where exemplar.read == read && exemplar.digit != read {
      counts[exemplar.digit, default: 0] += 1
    }
    return Set(counts.filter { $0.value >= Self.mistakeSeen }.keys)
  }

  /// The digit a cell with `features` that the reader decided was `decided` shows on this meter,
  /// when its confirmed readings say the reader mistakes that digit for `decided`: the cell's
  /// nearest exemplar by cosine similarity is one the reader read as `decided` where the user
  /// confirmed another digit, at least ``mistakeSeen`` exemplars show that mistake, and some were
  /// confirmed as `decided` (a meter that never showed one cannot tell it from the mistake, R119);
  /// nil otherwise. The memory's pool cannot outvote a network sure of a design it never learnt
  /// (a meter's straight-stemmed 6s read as 7s at 0.9); the meter's own record of it can.
  public func mistaken(_ decided: Int, features: [Float]) -> Int? {
    let repeated = repeatedMistakes(read: decided)
    guard !repeated.isEmpty, let query = Self.unit(features) else { return nil }
    var nearestRight: Float = -.infinity
    var nearestMistake: (similarity: Float, digit: Int)?
    for (exemplar, similarity) in similarities(to: query) {
      if exemplar.digit == decided {
        nearestRight = max(nearestRight, similarity)
      } else if exemplar.read == decided, similarity > nearestMistake?.similarity ?? -.infinity {
        nearestMistake = (similarity, exemplar.digit)
      }
    }
    guard let nearestMistake, nearestMistake.similarity > nearestRight, repeated.contains(nearestMistake.digit)
    else { return nil }
    return nearestMistake.digit
  }

  public mutating func add(_ other: DigitMemory) {
    exemplars += other.exemplars
  }

  /// The memory's probability for each digit it holds exemplars of, nil for the others.
  func opinion(_ features: [Float]) -> [Double?] {
    guard let query = Self.unit(features), !exemplars.isEmpty else { return Array(repeating: nil, count: 10) }
    var weights = [Double?](repeating: nil, count: 10)
    for (exemplar, similarity) in similarities(to: query) {
      weights[exemplar.digit] = (weights[exemplar.digit] ?? 0) + exp((Double(similarity) - 1) / Self.temperature)
    }
    let total = weights.compactMap { $0 }.reduce(0, +)
    guard total > 0 else { return Array(repeating: nil, count: 10) }
    return weights.map { $0.map { $0 / total } }
  }

  /// `probabilities` (one per digit, summing to the share of "a digit here") pooled with the
  /// memory's opinion of `features`: over the digits the memory holds, `(1 - share)` of the log of
  /// their renormalised probability and `share` of the memory's, scaled back to their total.
  public func pool(_ probabilities: [Double], features: [Float]?, share: Double = defaultShare) -> [Double] {
    guard let features, probabilities.count == 10 else { return probabilities }
    let opinion = opinion(features)
    let held = (0..<10).filter { opinion[$0] != nil }
    let mass = held.map { probabilities[$0] }.reduce(0, +)
    guard !held.isEmpty, mass > 0, share > 0 else { return probabilities }
    var pooled = probabilities
    let logs = held.map { digit in
      (1 - share) * log(max(probabilities[digit] / mass, 1e-12)) + share * log(max(opinion[digit]!, 1e-12))
    }
    let top = logs.max()!
    let total = logs.map { exp($0 - top) }.reduce(0, +)
    for (digit, value) in zip(held, logs) { pooled[digit] = exp(value - top) / total * mass }
    return pooled
  }

  /// Each exemplar of `query`'s length with its cosine similarity to `query` (of unit length).
  private func similarities(to query: [Float]) -> [(exemplar: Exemplar, similarity: Float)] {
    exemplars.filter { $0.features.count == query.count }.map { exemplar in
      var similarity: Float = 0
      for index in query.indices { similarity += query[index] * exemplar.features[index] }
      return (exemplar, similarity)
    }
  }

  private static func unit(_ features: [Float]) -> [Float]? {
    let norm = features.map { $0 * $0 }.reduce(0, +).squareRoot()
    guard norm > 1e-6 else { return nil }
    return features.map { $0 / norm }
  }
}
