import PhotometerProtocol
import TesseractEngine
import Testing

/// Tesseract's symbol confidences become beliefs through the fitted knots.
@Suite struct TesseractCalibrationTests {
  @Test func beliefsFollowTheKnotsAndHoldBeyondThem() {
    let knots = TesseractCalibration.knots
    for knot in knots {
      #expect(abs(TesseractCalibration.belief(knot.raw) - knot.belief) < 1e-9)
    }
    // Halfway between two knots, halfway between their beliefs.
    let (low, high) = (knots[2], knots[3])
    let middle = TesseractCalibration.belief((low.raw + high.raw) / 2)
    #expect(abs(middle - (low.belief + high.belief) / 2) < 1e-9)
    #expect(TesseractCalibration.belief(-1) == knots.first!.belief)
    #expect(TesseractCalibration.belief(2) == knots.last!.belief)
    #expect(TesseractCalibration.belief(.nan) == knots.first!.belief)
  }

  /// Measured on meter digits: Tesseract is right about 9 times in 10 on the digits it gives
  /// under 0.3, and 2 times in 3 on those it gives 0.9.
  @Test func aLowRawConfidenceIsNotALowBelief() {
    #expect(TesseractCalibration.belief(0.2) > TesseractCalibration.belief(0.9))
    #expect(TesseractCalibration.belief(0.9) < 0.75)
  }

  @Test func aReadingIsAsSureAsItsWeakestBelief() {
    let reading = EngineReading(
      text: "12", confidence: 0.2,
      symbols: [Symbol(text: "1", confidence: 0.2), Symbol(text: "2", confidence: 0.93)])
    let calibrated = TesseractCalibration.apply(to: reading)
    #expect(calibrated.text == "12")
    #expect(calibrated.symbols.map(\.confidence) == [0.2, 0.93].map(TesseractCalibration.belief))
    #expect(calibrated.confidence == TesseractCalibration.belief(0.93))
  }
}
