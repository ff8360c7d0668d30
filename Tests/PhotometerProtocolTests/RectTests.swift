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

  /// A rectangle covers an image when it reaches past or onto each of its four edges.
  @Test func aRectangleCoversAnImageOnlyToItsEveryEdge() {
    #expect(Rect(x: 0, y: 0, width: 640, height: 480).covers(width: 640, height: 480))
    #expect(Rect(x: -5, y: -5, width: 700, height: 500).covers(width: 640, height: 480))
    #expect(!Rect(x: 1, y: 0, width: 640, height: 480).covers(width: 640, height: 480))
    #expect(!Rect(x: 0, y: 0, width: 640, height: 479).covers(width: 640, height: 480))
  }
}
