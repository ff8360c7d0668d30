import PhotometerProtocol

/// A read plugin's ``DigitMemory`` of each meter, learnt from the examples the host sends with a
/// read (the meter's latest confirmed readings). An example's crop comes only when the plugin asks
/// for it (`missing_examples`), once; what it teaches is kept by its key until the host stops
/// sending that example. At most ``capacity`` meters are kept, the least recently read dropped
/// (its examples are asked for again if it comes back), which bounds the memory of a plugin that
/// reads many meters: about 100 KB a meter.
public struct MeterMemories {
  public static let capacity = 100

  private struct Meter {
    var taught: [String: DigitMemory] = [:]
    var asked: Set<String> = []
    var lastRead = 0
  }

  private var meters: [String: Meter] = [:]
  private var reads = 0

  public init() {}

  /// The meter's memory from `examples`, learning those that came with their crop through `learn`
  /// (a crop that teaches nothing is remembered as such), and the keys of those it still lacks and
  /// has not asked for. A request of no meter or no examples has none.
  public mutating func memory(
    meter name: String, examples: [Example], learn: (Example) -> DigitMemory
  ) -> (memory: DigitMemory, missing: [String]) {
    guard !name.isEmpty, !examples.isEmpty else { return (DigitMemory(), []) }
    reads += 1
    var meter = meters[name] ?? Meter()
    let keys = Set(examples.map(\.key))
    meter.taught = meter.taught.filter { keys.contains($0.key) }
    var missing: [String] = []
    for example in examples where meter.taught[example.key] == nil {
      if !example.crop.isEmpty {
        meter.taught[example.key] = learn(example)
      } else if !meter.asked.contains(example.key) {
        meter.asked.insert(example.key)
        missing.append(example.key)
      }
    }
    meter.lastRead = reads
    meters[name] = meter
    if meters.count > Self.capacity, let oldest = meters.min(by: { $0.value.lastRead < $1.value.lastRead })?.key {
      meters[oldest] = nil
    }
    var memory = DigitMemory()
    for key in meter.taught.keys.sorted() { memory.add(meter.taught[key]!) }
    return (memory, missing)
  }
}
