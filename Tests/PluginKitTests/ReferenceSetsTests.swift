import PhotometerProtocol
import Testing

@testable import PluginKit

/// What a plugin keeps of the reference lists the host names (``ReferenceSets``).
@Suite struct ReferenceSetsTests {
  let photo = Image(data: [1, 2, 3])

  func references(_ meters: String...) -> [Reference] {
    meters.map { Reference(meter: $0, image: Image(data: Array($0.utf8)), sha256: "sha-\($0)") }
  }

  func named(_ name: String, _ references: [Reference] = []) -> IdentifyRequest {
    IdentifyRequest(image: photo, references: references, referenceSet: name)
  }

  @Test func aNamedListIsKeptWithoutImagesAndResolvesItsNameSentAlone() {
    var sets = ReferenceSets()
    let gas = references("gas", "water")
    #expect(sets.resolve(named("A", gas))?.references == gas)
    let resolved = sets.resolve(named("A"))
    #expect(resolved?.references.map(\.meter) == ["gas", "water"])
    #expect(resolved?.references.map(\.sha256) == ["sha-gas", "sha-water"])
    #expect(resolved?.references.allSatisfy { $0.image.data.isEmpty } == true)
    #expect(resolved?.image == photo)
  }

  @Test func aNameNeverSentWithItsListIsUnknown() {
    var sets = ReferenceSets()
    #expect(sets.resolve(named("A")) == nil)
    _ = sets.resolve(named("A", references("gas")))
    #expect(sets.resolve(named("B")) == nil)
  }

  @Test func aRequestThatNamesNoSetIsLeftAsItCame() {
    var sets = ReferenceSets()
    let request = IdentifyRequest(image: photo, references: references("gas"))
    #expect(sets.resolve(request) == request)
    #expect(sets.resolve(IdentifyRequest(image: photo, references: []))?.references == [])
  }

  @Test func theLeastRecentlyUsedListGoesFirst() {
    var sets = ReferenceSets()
    let names = (0...ReferenceSets.capacity).map { "set\($0)" }
    for name in names.dropLast() {
      _ = sets.resolve(named(name, references(name)))
    }
    // Using the oldest makes the second oldest the one to go when one more comes.
    #expect(sets.resolve(named(names[0]))?.references.map(\.meter) == [names[0]])
    _ = sets.resolve(named(names.last!, references(names.last!)))
    #expect(sets.resolve(named(names[1])) == nil)
    for name in [names[0]] + names.dropFirst(2) {
      #expect(sets.resolve(named(name))?.references.map(\.meter) == [name], "\(name)")
    }
  }

  @Test func aListSentAgainUnderItsNameReplacesTheKeptOne() {
    var sets = ReferenceSets()
    _ = sets.resolve(named("A", references("gas")))
    _ = sets.resolve(named("A", references("water")))
    #expect(sets.resolve(named("A"))?.references.map(\.meter) == ["water"])
  }
}
