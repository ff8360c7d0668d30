import DigitReader
import Foundation
import PhotometerProtocol
import PhotometerVision
import TestSupport
import Testing

/// What a meter's confirmed readings teach the reader, and how a plugin keeps it.
@Suite struct DigitMemoryTests {
  /// Features along one axis each: a cell's features point where its digit's exemplars do.
  func axis(_ index: Int, _ tilt: Float = 0) -> [Float] {
    var features = [Float](repeating: 0, count: 8)
    features[index] = 1
    features[(index + 1) % 8] = tilt
    return features
  }

  @Test func aMetersSixesTeachItsSixes() {
    var memory = DigitMemory()
    for _ in 0..<3 {
      memory.add(features: axis(6), digit: 6)
      memory.add(features: axis(0), digit: 0)
    }
    // The networks lean to 0 on a cell that looks like the meter's 6s.
    var probabilities = [Double](repeating: 0.001, count: 10)
    probabilities[0] = 0.6
    probabilities[6] = 0.3
    probabilities[3] = 0.05
    let pooled = memory.pool(probabilities, features: axis(6, 0.2))
    #expect(pooled.indices.max { pooled[$0] < pooled[$1] } == 6, "\(pooled)")
    // A digit the meter never showed keeps its own probability, and the total stays.
    #expect(pooled[3] == probabilities[3])
    #expect(abs(pooled.reduce(0, +) - probabilities.reduce(0, +)) < 1e-9)
    // A cell like the meter's 0s stays a 0.
    let zero = memory.pool(probabilities, features: axis(0, 0.2))
    #expect(zero.indices.max { zero[$0] < zero[$1] } == 0)
  }

  @Test func aMistakeTheMetersReadingsRepeatIsCorrected() {
    var memory = DigitMemory()
    for _ in 0..<DigitMemory.mistakeSeen {
      // The reader read the meter's 6s as 7s; its 7s it read right.
      memory.add(features: axis(6), digit: 6, read: 7)
      memory.add(features: axis(7), digit: 7, read: 7)
    }
    #expect(memory.mistaken(7, features: axis(6, 0.2)) == 6)
    #expect(memory.mistaken(7, features: axis(7, 0.2)) == nil, "nearest a 7 confirmed as 7")
    #expect(memory.mistaken(6, features: axis(6, 0.2)) == nil, "no mistake read as 6")
    #expect(DigitMemory().mistaken(7, features: axis(6)) == nil)
    #expect(memory.mistakenReads == [7])
    // Once is no pattern: a wheel confirmed mid-roll as the digit it turned to is such a pair.
    var once = DigitMemory()
    once.add(features: axis(6), digit: 6, read: 7)
    once.add(features: axis(7), digit: 7, read: 7)
    #expect(once.mistaken(7, features: axis(6, 0.2)) == nil)
    #expect(once.mistakenReads.isEmpty)
  }

  @Test func aMeterThatNeverShowedTheDigitReadCannotTellItFromTheMistake() {
    // The meter's 6s were read as 0s, and no confirmed reading held a 0: a 0 read later may be
    // either, and stays as read.
    var memory = DigitMemory()
    for _ in 0..<DigitMemory.mistakeSeen { memory.add(features: axis(6), digit: 6, read: 0) }
    memory.add(features: axis(3), digit: 3, read: 3)
    #expect(memory.mistaken(0, features: axis(0)) == nil)
    #expect(memory.mistaken(0, features: axis(6, 0.2)) == nil)
    #expect(memory.mistakenReads.isEmpty)
    // Once it showed a 0, a cell like its 6s is a 6 and one like its 0s a 0.
    memory.add(features: axis(0), digit: 0, read: 0)
    #expect(memory.mistaken(0, features: axis(6, 0.2)) == 6)
    #expect(memory.mistaken(0, features: axis(0, 0.2)) == nil)
    #expect(memory.mistakenReads == [0])
  }

  @Test func anEmptyOrSilentMemoryChangesNothing() {
    let probabilities = (0..<10).map { Double($0 + 1) / 55 }
    #expect(DigitMemory().pool(probabilities, features: axis(1)) == probabilities)
    var silent = DigitMemory()
    silent.add(features: axis(1), digit: 9)
    #expect(silent.pool(probabilities, features: axis(1), share: 0) == probabilities)
    #expect(silent.pool(probabilities, features: nil) == probabilities)
    // Features of nothing (all zeros) teach nothing.
    var blank = DigitMemory()
    blank.add(features: [Float](repeating: 0, count: 8), digit: 1)
    #expect(blank.isEmpty)
  }

  /// One exemplar taught for each example crop the memory learns from.
  func teach(_ example: Example) -> DigitMemory {
    var memory = DigitMemory()
    memory.add(features: axis(Int(example.value)! % 8), digit: Int(example.value)! % 10)
    return memory
  }

  @Test func aPluginAsksForEachCropOnceAndForgetsWhatTheHostNoLongerSends() {
    var memories = MeterMemories()
    let bare = [Example(key: "a", value: "1"), Example(key: "b", value: "2")]
    let first = memories.memory(meter: "Gas", examples: bare, learn: teach)
    #expect(first.missing == ["a", "b"] && first.memory.isEmpty)
    let withCrops = bare.map { Example(key: $0.key, value: $0.value, crop: [1]) }
    let second = memories.memory(meter: "Gas", examples: withCrops, learn: teach)
    #expect(second.missing.isEmpty && second.memory.count == 2)
    // Bare again: learnt already, nothing to ask.
    #expect(memories.memory(meter: "Gas", examples: bare, learn: teach).memory.count == 2)
    // The host sends only the newer example now, whose crop never came: asked once, never again.
    let newer = [Example(key: "b", value: "2"), Example(key: "c", value: "3")]
    let third = memories.memory(meter: "Gas", examples: newer, learn: teach)
    #expect(third.missing == ["c"] && third.memory.count == 1)
    #expect(memories.memory(meter: "Gas", examples: newer, learn: teach).missing.isEmpty)
    // No meter or no examples: nothing kept, nothing asked.
    #expect(memories.memory(meter: "", examples: bare, learn: teach).missing.isEmpty)
    #expect(memories.memory(meter: "Water", examples: [], learn: teach).memory.isEmpty)
  }

  @Test func theLeastRecentlyReadMeterIsForgottenPastTheCapacity() {
    var memories = MeterMemories()
    let example = [Example(key: "a", value: "1", crop: [1])]
    for meter in 0...MeterMemories.capacity {
      _ = memories.memory(meter: "meter \(meter)", examples: example, learn: teach)
    }
    // Meter 0 was read longest ago: its example is asked for again.
    #expect(memories.memory(meter: "meter 0", examples: [Example(key: "a", value: "1")], learn: teach).missing == ["a"])
    #expect(memories.memory(meter: "meter 2", examples: [Example(key: "a", value: "1")], learn: teach).missing.isEmpty)
  }

  /// The committed reader and classifier learn one exemplar per digit of a confirmed window, and
  /// nothing from a value with a digit the window does not show.
  @Test func aConfirmedWindowTeachesEachOfItsDigits() async throws {
    let folder = try await Rendered.digits("wheels", count: 10, seed: 214)
    let checked = try await onOwnThread {
      let reader = try SequenceReaderTests.reader.get()
      var checked = 0
      for row in try Rendered.rows(folder.appendingPathComponent("labels.csv")) {
        let image = try VisionImage(decoding: [UInt8](try Data(contentsOf: folder.appendingPathComponent(row[0]))))
        guard try reader.read(image).text == row[1] else { continue }
        #expect(try reader.memory(of: image, confirmed: row[1]).count == row[1].count)
        #expect(try reader.memory(of: image, confirmed: "1" + row[1]).isEmpty)
        checked += 1
      }
      return checked
    }
    // (The shipped reader reads about half of such counters whole; each checked one counts.)
    #expect(checked >= 2)
  }
}
