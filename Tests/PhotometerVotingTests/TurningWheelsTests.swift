import PhotometerProtocol
import PhotometerVoting
import Testing

@Suite struct TurningWheelsTests {
  static func settled(_ digit: Int, other: (Int, Double)? = nil) -> Symbol {
    Symbol(
      text: String(digit), confidence: 0.99,
      alternatives: other.map { [Alternative(text: String($0.0), confidence: $0.1)] } ?? [])
  }

  /// A wheel read as `digit`, turning from `from` to the next with `other` the belief in the
  /// other digit of the pair.
  static func turning(_ digit: Int, from: Int, other: Double) -> Symbol {
    let pair = digit == from ? (from + 1) % 10 : from
    return Symbol(
      text: String(digit), confidence: 0.95, alternatives: [Alternative(text: String(pair), confidence: other)],
      roll: WheelRoll(from: String(from), fraction: 0.5))
  }

  static func named(_ digits: [Symbol]) -> String {
    TurningWheels.namedAlike(value: digits.map(\.text).joined(), digits: digits).value
  }

  /// 60619 turning to 60620, read 60610: the tens go to the last wheel's side.
  @Test func aWheelTurningWithALastZeroShowsItsUpperDigit() {
    let read = [Self.settled(6), Self.settled(0), Self.settled(6), Self.turning(1, from: 1, other: 0.3)]
    #expect(Self.named(read + [Self.settled(0, other: (9, 0.2))]) == "60620")
    #expect(Self.named(read + [Self.turning(0, from: 9, other: 0.4)]) == "60620")
    // Over a last wheel read 9 the tens keep their lower digit, as read.
    let nine = [Self.settled(6), Self.settled(0), Self.settled(6), Self.turning(2, from: 1, other: 0.3)]
    #expect(Self.named(nine + [Self.turning(9, from: 9, other: 0.4)]) == "60619")
  }

  /// 1999.x turning to 2000: every wheel turning from 9 goes with the last, and the one before them.
  @Test func aChainOfNinesTurnsTogether() {
    let read = [
      Self.turning(1, from: 1, other: 0.2), Self.turning(0, from: 9, other: 0.3), Self.turning(9, from: 9, other: 0.3),
      Self.turning(0, from: 9, other: 0.4),
    ]
    #expect(Self.named(read) == "2000")
    // The digits' runners-up follow: the digit read is now the runner-up.
    let digits = TurningWheels.namedAlike(value: "1090", digits: read).digits
    #expect(digits[0].alternatives.first?.text == "1")
  }

  /// A settled wheel the reader gave a roll (the other digit hardly believed) stays as read; so
  /// does every wheel when the last is not seen between 9 and 0.
  @Test func wheelsNotSeenTurningStay() {
    let spurious = [Self.settled(6), Self.turning(5, from: 5, other: 0.01), Self.settled(0, other: (9, 0.3))]
    #expect(Self.named(spurious) == "650")
    let lastSettled = [Self.settled(6), Self.turning(5, from: 5, other: 0.3), Self.settled(0, other: (9, 0.001))]
    #expect(Self.named(lastSettled) == "650")
    let lastFromZero = [Self.settled(6), Self.turning(5, from: 5, other: 0.3), Self.turning(0, from: 0, other: 0.4)]
    #expect(Self.named(lastFromZero) == "650")
    let lastFour = [Self.settled(6), Self.turning(5, from: 5, other: 0.3), Self.settled(4)]
    #expect(Self.named(lastFour) == "654")
  }

  @Test func aDecimalPointStaysWhereItWas() {
    let digits = [Self.settled(3), Self.turning(6, from: 6, other: 0.3), Self.turning(0, from: 9, other: 0.4)]
    #expect(TurningWheels.namedAlike(value: "36.0", digits: digits).value == "37.0")
  }
}
