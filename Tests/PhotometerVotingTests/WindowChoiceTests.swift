import PhotometerProtocol
import PhotometerVoting
import Testing

@Suite struct WindowChoiceTests {
  static func row(_ value: String, score: Double, confidence: Double = 0.9, digits: Int? = nil)
    -> WindowChoice.Candidate
  {
    WindowChoice.Candidate(
      box: Rect(x: 0, y: 0, width: 10, height: 10), score: score, digits: digits ?? value.filter(\.isNumber).count,
      value: value, confidence: confidence)
  }

  /// The case: a thermometer's 36.7 beside a clock's 10:42, read as 1042.
  @Test func theKindPicksTheRowInItsRange() {
    let rows = [Self.row("1042", score: 300), Self.row("36.7", score: 200)]
    #expect(WindowChoice.choose(rows, kind: .thermometer) == 1)
    #expect(WindowChoice.choose(rows, kind: nil) == 0)
  }

  @Test func withoutAFittingRowTheMostProminentConfidentRowWins() {
    let rows = [Self.row("12", score: 400, confidence: 0.2), Self.row("118", score: 250), Self.row("7", score: 100)]
    #expect(WindowChoice.choose(rows, kind: .thermometer) == 1)
    #expect(WindowChoice.choose(rows, kind: nil) == 1)
  }

  /// A row the finder saw as three digits, read as one, is likelier a misread than the reading.
  @Test func aRowReadWithFewerDigitsThanItShowsCountsLess() {
    let rows = [Self.row("0", score: 320, digits: 3), Self.row("85", score: 120)]
    #expect(WindowChoice.choose(rows, kind: nil) == 1)
  }

  @Test func aPhotoThatIsItselfAWindowIsReadWhole() {
    let small = Rect(x: 200, y: 150, width: 150, height: 60)
    #expect(WindowChoice.isScene(width: 640, height: 480, rows: [small]))
    #expect(!WindowChoice.isScene(width: 272, height: 78, rows: [Rect(x: 10, y: 10, width: 60, height: 20)]))
    #expect(!WindowChoice.isScene(width: 640, height: 480, rows: [Rect(x: 0, y: 0, width: 600, height: 100), small]))
    #expect(!WindowChoice.isScene(width: 640, height: 480, rows: []))
  }

  @Test func nothingReadIsNoChoice() {
    #expect(WindowChoice.choose([Self.row("", score: 100)], kind: nil) == nil)
    #expect(WindowChoice.choose([], kind: .glucose) == nil)
  }
}
