import PhotometerProtocol
import PhotometerVoting
import Testing

@Suite struct DialChainTests {
  static func pointers(_ positions: Double...) -> [DialChain.Pointer] {
    positions.map { DialChain.Pointer(position: $0, confidence: 0.9) }
  }

  @Test func settledWheelsAndDialsReadToTheFinestDigit() throws {
    let chain = try #require(
      DialChain(wheels: "00123", wheelConfidence: 0.99, dials: Self.pointers(4.56, 5.67, 6.7, 7.0)))
    #expect(chain.value == "00123.4567")
    #expect(!chain.wheelDecidedByDials)
    #expect(chain.confidence > 0.85)
  }

  /// x0.1 points just short of 5 but x0.01 is past 9: the tenths are still 4; x0.1 just short of 2
  /// with x0.01 at 2: they are 2.
  @Test func aCoarserDialIsReadByTheFinerOnesFraction() throws {
    let chain = try #require(DialChain(wheels: "00010", wheelConfidence: 0.99, dials: Self.pointers(4.97, 9.7)))
    #expect(chain.value == "00010.49")
    let past = try #require(DialChain(wheels: "00010", wheelConfidence: 0.99, dials: Self.pointers(1.98, 0.2)))
    #expect(past.value == "00010.20")
  }

  /// The case: a last wheel half-way from 0 to 1, read as 1, with x0.1 at 9.5: the value is
  /// still x0.95, and the last wheel's digit is 0.
  @Test func theDialsDecideALastWheelCaughtMidRoll() throws {
    let chain = try #require(
      DialChain(wheels: "00531", wheelConfidence: 0.95, dials: Self.pointers(9.5, 5.0, 0.1, 1.0)))
    #expect(chain.value == "00530.9501")
    #expect(chain.wheelDecidedByDials)
    // The reader saw the roll: from 0, 0.9 of the way.
    let rolled = try #require(
      DialChain(wheels: "00530", lastWheelRoll: 0.9, wheelConfidence: 0.95, dials: Self.pointers(9.5, 5.0, 0.1, 1.0)))
    #expect(rolled.value == "00530.9501")
    #expect(!rolled.wheelDecidedByDials)
  }

  /// Wheels read just after rolling over while the dials are still short of 0: the number goes back.
  @Test func theDialsCarryBackAcrossAWheelThatRolledEarly() throws {
    let chain = try #require(DialChain(wheels: "01000", wheelConfidence: 0.9, dials: Self.pointers(9.9, 9.1)))
    #expect(chain.value == "00999.99")
    let wrapped = try #require(DialChain(wheels: "00000", wheelConfidence: 0.9, dials: Self.pointers(9.8, 8.0)))
    #expect(wrapped.value == "99999.98")
  }

  /// 12649.69: the tens wheel is seven tenths of its way to 5 and the last wheel seven tenths of its
  /// way to 0, each read as its nearest digit.
  @Test func wheelsReadAsNearestDigitsMeetTheDials() throws {
    let symbols = "12650".map { Symbol(text: String($0), confidence: 0.9) }
    let chain = try #require(DialChain(wheels: symbols, wheelConfidence: 0.9, dials: Self.pointers(6.9, 9.0)))
    #expect(chain.value == "12649.69")
  }

  /// x0.1 at 7: the last wheel shows its digit over three tenths of its window and the next over
  /// seven. Read as 5 alone it is 4.7 (5 the nearer digit); read as 5 with 6 the runner-up it is
  /// 5.7, and with 4 the runner-up 4.7.
  @Test func theReadersRunnerUpPlacesTheLastWheel() throws {
    func wheels(_ alternative: Alternative?) -> [Symbol] {
      "0012".map { Symbol(text: String($0), confidence: 0.95) }
        + [Symbol(text: "5", confidence: 0.55, alternatives: alternative.map { [$0] } ?? [])]
    }
    let dials = Self.pointers(7.0, 0.1)
    let alone = try #require(DialChain(wheels: wheels(nil), wheelConfidence: 0.55, dials: dials))
    #expect(alone.value == "00124.70")
    let six = try #require(
      DialChain(wheels: wheels(Alternative(text: "6", confidence: 0.4)), wheelConfidence: 0.55, dials: dials))
    #expect(six.value == "00125.70")
    #expect(!six.wheelDecidedByDials)
    let four = try #require(
      DialChain(wheels: wheels(Alternative(text: "4", confidence: 0.4)), wheelConfidence: 0.55, dials: dials))
    #expect(four.value == "00124.70")
    #expect(four.wheelDecidedByDials)
  }

  /// 27719.41: the tens wheel turns with the last, 0.41 of the way from 1 to 2, and is read as 2
  /// with 1 the runner-up: the pair 1-2 agrees better than 2-3, so it is 1. A tens wheel read so
  /// over a last wheel that is no 9 is settled and stays as read; one read 2 alone stays 2.
  @Test func aHigherWheelTurningWithTheLastIsSettledByItsPair() throws {
    func wheels(last: String, tensRunnerUp: String?) -> [Symbol] {
      "277".map { Symbol(text: String($0), confidence: 0.99) }
        + [
          Symbol(
            text: "2", confidence: 0.95,
            alternatives: tensRunnerUp.map { [Alternative(text: $0, confidence: 0.34)] } ?? []),
          Symbol(text: last, confidence: 0.95),
        ]
    }
    let dials = Self.pointers(4.12, 1.45, 4.57, 5.0)
    let turning = try #require(
      DialChain(wheels: wheels(last: "9", tensRunnerUp: "1"), wheelConfidence: 0.95, dials: dials))
    #expect(turning.value == "27719.4145")
    let alone = try #require(
      DialChain(wheels: wheels(last: "9", tensRunnerUp: nil), wheelConfidence: 0.95, dials: dials))
    #expect(alone.value == "27729.4145")
    let settled = try #require(
      DialChain(wheels: wheels(last: "5", tensRunnerUp: "1"), wheelConfidence: 0.95, dials: dials))
    #expect(settled.value == "27725.4145")
    // Over two 9s the hundreds turn too: 00699.4 read 00799, the hundreds with 6 the runner-up.
    let hundreds = "00799".enumerated().map { index, text in
      Symbol(
        text: String(text), confidence: 0.9, alternatives: index == 2 ? [Alternative(text: "6", confidence: 0.6)] : [])
    }
    let both = try #require(DialChain(wheels: hundreds, wheelConfidence: 0.9, dials: Self.pointers(4.0, 0.0)))
    #expect(both.value == "00699.40")
  }

  /// An extended counter: 1239.85 shows its tens wheel 0.85 of the way to 4 and its last wheel
  /// 0.85 of the way from 9 to 0, read as their nearest digits; a settled last wheel adds a 0.
  @Test func anExtendedCountersLastWheelRollIsOneMoreDecimal() throws {
    var symbols = "1240".map { Symbol(text: String($0), confidence: 0.9) }
    symbols[3].roll = WheelRoll(from: "9", fraction: 0.85)
    #expect(DialChain.extending(wheels: symbols, wheelConfidence: 0.9)?.value == "1239.8")
    let settled = "1240".map { Symbol(text: String($0), confidence: 0.9) }
    #expect(DialChain.extending(wheels: settled, wheelConfidence: 0.9)?.value == "1240.0")
    #expect(DialChain.extending(wheels: [], wheelConfidence: 0.9) == nil)
  }

  /// x0.01 at 5 puts x0.1 at 3.5: a pointer up to 0.3 from there is the reader's own error and
  /// leaves the value as sure as its dials (0.9); nearer the 0.5 where x0.1 would read 4, less.
  @Test func dialsThatDisagreeLowerTheConfidence() throws {
    func confidence(_ coarse: Double) throws -> Double {
      try #require(DialChain(wheels: "00001", wheelConfidence: 1, dials: Self.pointers(coarse, 5.0))).confidence
    }
    #expect(try confidence(3.5) > 0.85)
    #expect(try confidence(3.75) > 0.85)
    #expect(try confidence(3.9) < 0.5)
    #expect(try confidence(3.98) < 0.1)
  }

  @Test func wheelsThatAreNotDigitsAreRefused() {
    #expect(DialChain(wheels: "12a4", wheelConfidence: 1, dials: []) == nil)
    #expect(DialChain(wheels: "", wheelConfidence: 1, dials: []) == nil)
  }
}
