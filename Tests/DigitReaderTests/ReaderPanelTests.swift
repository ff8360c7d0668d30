import PhotometerProtocol
import Testing

@testable import DigitReader

/// How a panel of reader trainings decides between their whole readings.
@Suite struct ReaderPanelTests {
  func reading(_ text: String, _ confidence: Double, symbol: String = "") -> EngineReading {
    EngineReading(
      text: text, confidence: confidence,
      symbols: [Symbol(text: symbol.isEmpty ? text : symbol, confidence: confidence)])
  }

  @Test func twoOfThreeOutvoteASurerThird() {
    let decided = ReaderPanel.decide([
      reading("1234", 0.6), reading("1284", 0.99), reading("1234", 0.8, symbol: "surest"),
    ])
    #expect(decided.text == "1234")
    // The surest of the agreeing readers gives the symbols, at the agreeing readers' mean confidence.
    #expect(decided.symbols.first?.text == "surest")
    #expect(abs(decided.confidence - 0.7) < 1e-9)
  }

  @Test func withNoMajorityTheSurestWins() {
    let decided = ReaderPanel.decide([reading("17", 0.5), reading("171", 0.9), reading("11", 0.7)])
    #expect(decided.text == "171")
    #expect(abs(decided.confidence - 0.9) < 1e-9)
  }

  @Test func readersThatAgreeKeepTheirConfidence() {
    let decided = ReaderPanel.decide([reading("36.7", 0.9), reading("36.7", 0.9), reading("36.7", 0.9)])
    #expect(decided.text == "36.7")
    #expect(abs(decided.confidence - 0.9) < 1e-9)
  }

  @Test func aPanelOfOneReadsAsItsMember() {
    let only = EngineReading(text: "00530", confidence: 0.42, symbols: [], missingExamples: ["a"])
    #expect(ReaderPanel.decide([only]) == only)
  }
}
