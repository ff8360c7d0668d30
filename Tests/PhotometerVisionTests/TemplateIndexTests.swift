import PhotometerVision
import Testing

@Suite struct TemplateIndexTests {
  /// Rows of `dimensions` pseudo-random floats in -1...1 (a fixed linear congruential sequence).
  static func rows(_ count: Int, dimensions: Int, seed: UInt64) -> [Float] {
    var state = seed
    return (0..<count * dimensions).map { _ in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Float(Int64(bitPattern: state >> 11) % 2_000_001 - 1_000_000) / 1_000_000
    }
  }

  /// The `k` best templates of each query by dot product, best first (equal scores: the lower
  /// index first), computed plainly in Double.
  static func bruteForce(templates: [Float], queries: [Float], dimensions: Int, k: Int)
    -> [[(index: Int, similarity: Float)]]
  {
    let count = templates.count / dimensions
    return stride(from: 0, to: queries.count, by: dimensions).map { start in
      let scores = (0..<count).map { item in
        (0..<dimensions).reduce(0.0) {
          $0 + Double(templates[item * dimensions + $1]) * Double(queries[start + $1])
        }
      }
      let ranked = (0..<count).sorted { (scores[$0], $1) > (scores[$1], $0) }
      return ranked.prefix(k).map { (index: $0, similarity: Float(scores[$0])) }
    }
  }

  @Test func findsTheSameNeighboursAsAPlainSearch() throws {
    // 1,003 templates: the last block of eight is partly padding. Query counts on both sides
    // of the eight the index compares at once.
    let dimensions = 64
    let templates = Self.rows(1003, dimensions: dimensions, seed: 1)
    let index = try TemplateIndex(templates: templates, dimensions: dimensions)
    for queryCount in [1, 2, 3, 7, 8, 9, 17] {
      let queries = Self.rows(queryCount, dimensions: dimensions, seed: UInt64(100 + queryCount))
      let expected = Self.bruteForce(templates: templates, queries: queries, dimensions: dimensions, k: 12)
      let found = try index.nearest(queries: queries, k: 12)
      #expect(found.map { $0.map(\.index) } == expected.map { $0.map(\.index) }, "\(queryCount) queries")
      for (row, expectedRow) in zip(found, expected) {
        for (neighbour, expectedNeighbour) in zip(row, expectedRow) {
          #expect(abs(neighbour.similarity - expectedNeighbour.similarity) < 1e-4)
        }
      }
    }
  }

  @Test func aLastTemplateAloneInItsBlockIsFound() throws {
    // Nine templates: the ninth is the only real one of the second block, and the best match.
    var templates = [Float](repeating: 0, count: 9 * 4)
    for row in 0..<8 { templates[row * 4] = 0.1 * Float(row) }
    templates[8 * 4 + 3] = 1
    let index = try TemplateIndex(templates: templates, dimensions: 4)
    let found = try index.nearest(queries: [0, 0, 0, 1], k: 2)
    #expect(found.count == 1)
    #expect(found[0].first?.index == 8)
    #expect(found[0].first?.similarity == 1)
  }
}
