/// A dial written as people type it and exports store it: `X,Y,W,H:FACTOR[:ccw]`, e.g.
/// `40,210,90,90:0.1` or `150,210,90,90:0.01:ccw`.
extension Dial {
  public init(parsing text: String) throws(DialSyntaxError) {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
    let numbers = parts[0].split(separator: ",").map { Int32(String($0.filter { $0 != " " })) }
    guard (2...3).contains(parts.count), numbers.count == 4, numbers.allSatisfy({ $0 != nil }),
      let factor = Double(parts[1]), factor.isFinite, factor > 0,
      parts.count == 2 || parts[2] == "ccw" || parts[2] == "cw"
    else {
      throw DialSyntaxError(text: text)
    }
    self.init(
      region: Rect(x: numbers[0]!, y: numbers[1]!, width: numbers[2]!, height: numbers[3]!), factor: factor,
      counterClockwise: parts.count == 3 && parts[2] == "ccw")
  }

  /// The dial as ``init(parsing:)`` reads it.
  public var text: String {
    "\(region.x),\(region.y),\(region.width),\(region.height):\(factor)" + (counterClockwise ? ":ccw" : "")
  }
}

/// A dial's text is not `X,Y,W,H:FACTOR[:ccw]`.
public struct DialSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
  public var text: String

  public var description: String {
    "'\(text)' is not a dial: write X,Y,W,H:FACTOR[:ccw], e.g. 40,210,90,90:0.1 (the box around the dial in the "
      + "reference photo, what one division is worth, ccw when its numbers run anticlockwise)"
  }
}
