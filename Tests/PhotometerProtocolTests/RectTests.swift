import PhotometerProtocol
import Testing

@Suite struct RectTests {
  /// The box around several boxes reaches each one's farthest edge; around one, it is that one.
  @Test func theRectangleAroundOthersHoldsEachOfThem() {
    let systolic = Rect(x: 40, y: 20, width: 120, height: 50)
    let pulse = Rect(x: 110, y: 150, width: 60, height: 30)
    #expect(Rect(around: [systolic, pulse]) == Rect(x: 40, y: 20, width: 130, height: 160))
    #expect(Rect(around: [pulse]) == pulse)
  }
}
