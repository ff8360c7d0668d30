/// An encoded image (JPEG, PNG or any format the recognizers decode).
public struct Image: Hashable, Sendable {
  public var data: [UInt8]
  /// A name for messages and logs, e.g. the file name.
  public var name: String

  public init(data: [UInt8], name: String = "") {
    self.data = data
    self.name = name
  }
}

/// A rectangle in image pixels.
public struct Rect: Hashable, Sendable, CustomStringConvertible {
  public var x: Int32
  public var y: Int32
  public var width: Int32
  public var height: Int32

  public init(x: Int32, y: Int32, width: Int32, height: Int32) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }

  public var description: String { "\(x),\(y),\(width),\(height)" }
}

/// A point in image pixels.
public struct Point: Hashable, Sendable {
  public var x: Float
  public var y: Float

  public init(x: Float, y: Float) {
    self.x = x
    self.y = y
  }
}

/// What does this photo read? From a client to the host, and from the host to each read plugin.
public struct ReadRequest: Hashable, Sendable {
  public var image: Image
  /// The region holding the digits; `nil` means the whole image.
  public var roi: Rect?
  /// A registered meter whose settings apply, or empty.
  public var meter: String
  /// The expected number of digits, 0 if unknown.
  public var digits: UInt32
  /// The expected number of decimal places.
  public var decimals: UInt32
  /// Request-specific settings for the recognizers.
  public var options: [String: String]

  public init(
    image: Image,
    roi: Rect? = nil,
    meter: String = "",
    digits: UInt32 = 0,
    decimals: UInt32 = 0,
    options: [String: String] = [:]
  ) {
    self.image = image
    self.roi = roi
    self.meter = meter
    self.digits = digits
    self.decimals = decimals
    self.options = options
  }
}

/// A runner-up for one recognized character.
public struct Alternative: Hashable, Sendable {
  public var text: String
  public var confidence: Double

  public init(text: String, confidence: Double) {
    self.text = text
    self.confidence = confidence
  }
}

/// One character a read plugin recognized.
public struct Symbol: Hashable, Sendable {
  public var text: String
  public var confidence: Double
  public var box: Rect?
  public var alternatives: [Alternative]

  public init(text: String, confidence: Double, box: Rect? = nil, alternatives: [Alternative] = []) {
    self.text = text
    self.confidence = confidence
    self.box = box
    self.alternatives = alternatives
  }
}

/// A read plugin's answer.
public struct EngineReading: Hashable, Sendable {
  public var text: String
  /// 0 to 1.
  public var confidence: Double
  public var symbols: [Symbol]

  public init(text: String, confidence: Double, symbols: [Symbol] = []) {
    self.text = text
    self.confidence = confidence
    self.symbols = symbols
  }
}

/// One read engine's part in a ``ReadResult``: its reading, or why it has none.
public typealias EngineAnswer = PluginAnswer<EngineReading>

/// The host's answer to a ``ReadRequest``.
public struct ReadResult: Hashable, Sendable {
  /// The voted value, empty when no engine produced one.
  public var value: String
  /// 0 to 1.
  public var confidence: Double
  public var engines: [EngineAnswer]
  /// Conditions a client should show, e.g. `low-confidence`.
  public var flags: [String]
  /// One line a client can show or speak.
  public var summary: String

  public init(value: String, confidence: Double, engines: [EngineAnswer], flags: [String], summary: String) {
    self.value = value
    self.confidence = confidence
    self.engines = engines
    self.flags = flags
    self.summary = summary
  }
}
