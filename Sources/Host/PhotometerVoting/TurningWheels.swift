import PhotometerProtocol

/// A counter turns a wheel only while the wheel to its right passes from 9 to 0, so the wheels
/// caught turning with the last stand on the same side of the reading line as it: over a last
/// wheel read 9 each shows its lower digit, over one read 0 its upper. A reading that names them
/// apart (60610 for a counter between 60619 and 60620) is off by a power of ten.
///
/// The reader's roll alone does not say a wheel turns: it gives settled wheels of unfamiliar
/// meters rolls too. A wheel is taken as turning when it was read with a roll and the other digit
/// of its pair keeps at least ``twoDigitsShown`` of the vote's belief, the window showing parts
/// of both, and only while the last wheel is seen between 9 and 0 as well (docs/recognizers.md,
/// R153 and R154).
public enum TurningWheels {
  /// The least belief in a rolling wheel's other digit for it to count as turning.
  public static let twoDigitsShown = 0.05

  /// `value` and its `digits` (one symbol per digit of `value`, its decimal point left out) with
  /// the wheels turning with the last named on the last's side; as they were when the last reads
  /// neither 9 nor 0, is not seen passing from 9 to 0 (``passesNine(_:read:)``), or no wheel
  /// before it turns.
  public static func namedAlike(value: String, digits: [Symbol]) -> (value: String, digits: [Symbol]) {
    let read = digits.compactMap { $0.text.count == 1 ? $0.text.first?.wholeNumberValue : nil }
    guard read.count == digits.count, read.count >= 2, value.filter(\.isNumber).count == read.count,
      let last = read.last, last == 9 || last == 0, let lastSymbol = digits.last, passesNine(lastSymbol, read: last)
    else { return (value, digits) }
    var named = digits
    var index = digits.count - 2
    while index >= 0, let from = turning(digits[index]) {
      let shown = String(last == 9 ? from : (from + 1) % 10)
      if shown != named[index].text {
        // The digit it was read as becomes the runner-up in the place of the one now shown.
        named[index].alternatives = named[index].alternatives.map { alternative in
          alternative.text == shown
            ? Alternative(text: named[index].text, confidence: alternative.confidence) : alternative
        }
        named[index].text = shown
      }
      guard from == 9 else { break }
      index -= 1
    }
    var texts = named.map(\.text).makeIterator()
    let renamed = value.map { $0.isNumber ? texts.next()! : String($0) }.joined()
    return (renamed, named)
  }

  /// Whether the last wheel, read as `read` (9 or 0), is seen passing from 9 to 0: rolling from 9,
  /// or the other of the two keeping at least ``twoDigitsShown`` of the belief.
  static func passesNine(_ symbol: Symbol, read: Int) -> Bool {
    if let roll = symbol.roll { return roll.from == "9" }
    let other = read == 9 ? "0" : "9"
    return (symbol.alternatives.first { $0.text == other }?.confidence ?? 0) >= twoDigitsShown
  }

  /// The lower digit of the pair `symbol`'s wheel turns between, when it is seen turning.
  static func turning(_ symbol: Symbol) -> Int? {
    guard let roll = symbol.roll, let from = Int(roll.from), roll.fits(symbol.text), let read = Int(symbol.text)
    else { return nil }
    let other = String(read == from ? (from + 1) % 10 : from)
    let belief = symbol.alternatives.first { $0.text == other }?.confidence ?? 0
    return belief >= twoDigitsShown ? from : nil
  }
}
