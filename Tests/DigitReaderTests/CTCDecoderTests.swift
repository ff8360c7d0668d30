import DigitReader
import Testing

@Suite struct CTCDecoderTests {
  let decoder = CTCDecoder(alphabet: Array("-0123456789."))

  /// Columns each sure of one class (`-` the blank).
  func columns(_ path: String, sureness: Double = 0.9) -> [[Double]] {
    path.map { character in
      let index = decoder.alphabet.firstIndex(of: character)!
      return (0..<12).map { $0 == index ? sureness : (1 - sureness) / 11 }
    }
  }

  @Test func collapsesRunsAndDropsBlanks() {
    let emissions = decoder.greedy(columns("-33-3--66.-7-"))
    #expect(String(emissions.map(\.character)) == "336.7")
    #expect(emissions.map(\.columns) == [1...2, 4...4, 7...8, 9...9, 11...11])
  }

  @Test func aDigitCountPicksTheLikeliestPathWithThatMany() {
    // The fourth column is unsure between a blank and a 5: blind, the blank wins.
    var probabilities = columns("-1-2--3-")
    probabilities[4] = (0..<12).map { $0 == 0 ? 0.5 : $0 == 6 ? 0.4 : 0.1 / 10 }
    #expect(String(decoder.greedy(probabilities).map(\.character)) == "123")
    let four = decoder.constrained(probabilities, digits: 4)
    #expect(four.map { String($0.map(\.character)) } == "1253")
    #expect(decoder.constrained(probabilities, digits: 3).map { String($0.map(\.character)) } == "123")
  }

  @Test func aDecimalPointDoesNotCountAsADigit() {
    #expect(decoder.constrained(columns("-3-6.-7-"), digits: 3).map { String($0.map(\.character)) } == "36.7")
  }

  @Test func atLeastADigitTakesTheLikeliestDigitOfABlankWindow() {
    // Every column is blank at best; the fourth is the likeliest to hold a digit, a 7.
    var probabilities = columns("------")
    probabilities[3] = (0..<12).map { $0 == 0 ? 0.6 : $0 == 8 ? 0.3 : 0.1 / 10 }
    #expect(decoder.greedy(probabilities).isEmpty)
    let one = decoder.constrained(probabilities, atLeast: 1)
    #expect(one.map { String($0.map(\.character)) } == "7")
    #expect(one?.first?.columns == 3...3)
    // A path that holds more than one already is the best path.
    let three = columns("-1-2--3-")
    #expect(decoder.constrained(three, atLeast: 1) == decoder.greedy(three))
    #expect(decoder.constrained([], atLeast: 1) == nil)
  }

  @Test func noPathHoldsMoreDigitsThanColumns() {
    #expect(decoder.constrained(columns("-1"), digits: 3) == nil)
    #expect(decoder.constrained([], digits: 0) == [])
  }
}

@Suite struct MeterPriorTests {
  @Test func confirmedValuesThatAgreeGiveTheDigitCount() {
    #expect(MeterPrior(confirmed: ["00123", "00131", "0014.5"]).digits == 5)
    #expect(MeterPrior(confirmed: ["00123", "1"]).digits == nil)
    #expect(MeterPrior(confirmed: ["00123"]).digits == nil)
    #expect(MeterPrior(confirmed: []).digits == nil)
  }
}
