import Foundation

/// Reads a character sequence out of per-column class probabilities trained with CTC: class 0 is
/// the blank, a character is a run of columns whose best class is it, and a blank separates two
/// equal characters.
public struct CTCDecoder: Sendable {
  /// The character of each class; the blank's is ignored.
  public let alphabet: [Character]
  /// The classes that count as digits when a digit count is given.
  public let digitClasses: Set<Int>
  /// The class of each digit 0-9 (nil for a digit the alphabet lacks).
  public let classOfDigit: [Int?]

  public init(alphabet: [Character]) {
    self.alphabet = alphabet
    digitClasses = Set(alphabet.indices.filter { alphabet[$0].isNumber })
    classOfDigit = (0..<10).map { digit in alphabet.firstIndex(of: Character(String(digit))) }
  }

  /// One character of the best path: its class and the columns it spans.
  public struct Emission: Hashable, Sendable {
    public var character: Character
    public var classIndex: Int
    public var columns: ClosedRange<Int>
  }

  /// The best path (each column's likeliest class), collapsed.
  public func greedy(_ probabilities: [[Double]]) -> [Emission] {
    collapse(probabilities.map { column in column.indices.max { column[$0] < column[$1] }! })
  }

  /// The likeliest path that holds exactly `digits` digit characters (other characters, such as
  /// a decimal point, as many as the path likes): a Viterbi search over (digits so far, last
  /// class). `nil` when no path of the columns can hold that many.
  public func constrained(_ probabilities: [[Double]], digits: Int) -> [Emission]? {
    likeliest(probabilities, digits: digits, orMore: false)
  }

  /// The likeliest path that holds at least `digits` digit characters: what a window is read as
  /// when its best path holds too few (a window the host sends has a digit in it). `nil` when no
  /// path of the columns can hold that many.
  public func constrained(_ probabilities: [[Double]], atLeast digits: Int) -> [Emission]? {
    likeliest(probabilities, digits: digits, orMore: true)
  }

  /// The Viterbi search behind both: states count the digits so far, up to `digits`; with
  /// `orMore` a path may go on past `digits` (the count stays there).
  private func likeliest(_ probabilities: [[Double]], digits: Int, orMore: Bool) -> [Emission]? {
    let classes = alphabet.count
    guard digits >= 0, !probabilities.isEmpty else { return digits == 0 ? [] : nil }
    let states = (digits + 1) * classes
    let impossible = -Double.infinity
    var score = [Double](repeating: impossible, count: states)
    var back: [[Int32]] = []
    func state(_ count: Int, _ last: Int) -> Int { count * classes + last }
    func logP(_ column: Int, _ index: Int) -> Double { log(max(probabilities[column][index], 1e-12)) }
    for index in 0..<classes {
      let count = digitClasses.contains(index) ? 1 : 0
      if count <= digits || orMore { score[state(min(count, digits), index)] = logP(0, index) }
    }
    for column in 1..<probabilities.count {
      var next = [Double](repeating: impossible, count: states)
      var from = [Int32](repeating: -1, count: states)
      for previous in 0..<states where score[previous] > impossible {
        let (count, last) = (previous / classes, previous % classes)
        for index in 0..<classes {
          let opens = index != 0 && index != last
          let added = opens && digitClasses.contains(index) ? 1 : 0
          guard count + added <= digits || orMore else { continue }
          let target = state(min(count + added, digits), index)
          let candidate = score[previous] + logP(column, index)
          if candidate > next[target] {
            next[target] = candidate
            from[target] = Int32(previous)
          }
        }
      }
      back.append(from)
      score = next
    }
    let finals = (0..<classes).map { state(digits, $0) }
    guard let best = finals.max(by: { score[$0] < score[$1] }), score[best] > impossible else { return nil }
    var path = [best % classes]
    var current = best
    for from in back.reversed() {
      current = Int(from[current])
      path.append(current % classes)
    }
    return collapse(path.reversed())
  }

  private func collapse(_ path: [Int]) -> [Emission] {
    var emissions: [Emission] = []
    var previous = 0
    for (column, index) in path.enumerated() {
      if index != 0 && index == previous, let last = emissions.indices.last {
        emissions[last].columns = emissions[last].columns.lowerBound...column
      } else if index != 0 {
        emissions.append(Emission(character: alphabet[index], classIndex: index, columns: column...column))
      }
      previous = index
    }
    return emissions
  }
}
