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

  /// A row of clutter the reader read as "60" at 0.32, its least sure gap counted, is no surer
  /// for the vote's 0.57 (its weakest digit's); a shadow's sure "60" does not count.
  @Test func aRowIsNoSurerThanTheVotingEnginesOwnReading() {
    func answer(_ plugin: String, _ text: String, _ confidence: Double, voted: Bool = true) -> EngineAnswer {
      EngineAnswer(
        plugin: plugin, version: "1", outcome: .success(EngineReading(text: text, confidence: confidence)),
        milliseconds: 1, voted: voted)
    }
    let clutter = ReadResult(
      value: "60", confidence: 0.57,
      engines: [answer("reader", "60", 0.32), answer("tesseract", "60", 0.95, voted: false)], flags: [], summary: "")
    #expect(WindowChoice.confidence(of: clutter) == 0.32)
    let display = ReadResult(
      value: "41.3", confidence: 0.93, engines: [answer("reader", "41.3", 0.99), answer("digits", "4", 0.5)],
      flags: [], summary: "")
    #expect(WindowChoice.confidence(of: display) == 0.93)
    let disagreeing = ReadResult(
      value: "118", confidence: 0.7, engines: [answer("reader", "113", 0.2)], flags: [], summary: "")
    #expect(WindowChoice.confidence(of: disagreeing) == 0.7)
  }

  @Test func nothingReadIsNoChoice() {
    #expect(WindowChoice.choose([Self.row("", score: 100)], kind: nil) == nil)
    #expect(WindowChoice.choose([], kind: .glucose) == nil)
  }
}
