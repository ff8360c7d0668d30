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

  /// Whether the rectangle holds every pixel of an image `width` x `height` pixels.
  public func covers(width imageWidth: Int, height imageHeight: Int) -> Bool {
    x <= 0 && y <= 0 && Int(x) + Int(width) >= imageWidth && Int(y) + Int(height) >= imageHeight
  }

  /// The smallest rectangle holding every one of `rects`, of which there is at least one.
  public init(around rects: [Rect]) {
    precondition(!rects.isEmpty, "a rectangle around no rectangles")
    let left = rects.map(\.x).min()!, top = rects.map(\.y).min()!
    let right = rects.map { $0.x + $0.width }.max()!, bottom = rects.map { $0.y + $0.height }.max()!
    self.init(x: left, y: top, width: right - left, height: bottom - top)
  }

  /// Width times height, in pixels.
  public var area: Double { Double(width) * Double(height) }

  /// The area this box shares with `other`, in pixels.
  public func overlapArea(with other: Rect) -> Double {
    let width = max(0, min(x + self.width, other.x + other.width) - max(x, other.x))
    let height = max(0, min(y + self.height, other.y + other.height) - max(y, other.y))
    return Double(width) * Double(height)
  }

  /// Intersection over union with `other`: 1 for the same box, 0 for boxes apart; how well a row
  /// found matches the true one.
  public func overlap(with other: Rect) -> Double {
    let shared = overlapArea(with: other)
    let union = area + other.area - shared
    return union > 0 ? shared / union : 0
  }
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
  /// Store the value as an unconfirmed reading of ``meter`` (or of the identified meter).
  public var save: Bool
  /// Frames of one live display share a stream name; empty for a single photo.
  public var stream: String
  /// From the host to read plugins: the meter's latest confirmed or corrected readings, for
  /// engines that learn a meter's own digits; crops only on demand.
  public var examples: [Example]
  /// Pointer dials to read with the digits (a registered meter's come from its settings); from
  /// the host to dials plugins, the dials in ``image``.
  public var dials: [Dial]
  /// For a device not registered, with no ``roi``: what it is, so that of the rows of digits
  /// found in the photo the one in the kind's range is taken. A registered meter's kind wins.
  public var kind: MeterKind?
  /// From the host to read plugins: one of the rows found in a whole photo, read only to compare
  /// it with the others; an engine may leave out what only refines a reading and then sets
  /// ``EngineReading/refinable``.
  public var survey: Bool
  /// From the host to read plugins: ``image`` is a row of digits the host cut from a whole photo
  /// (surveyed, or read again once chosen), not a window a client or a meter's settings gave; it
  /// may hold the display's frame, a unit or a smaller row beside the digits.
  public var foundRow: Bool
  /// From clients: the shadow engines read too and their answers come in the result. A shadow's
  /// answer is kept only with a saved reading (``save``), for comparing engines; without either,
  /// shadows do not read and the reply does not wait for them.
  public var shadows: Bool

  public init(
    image: Image,
    roi: Rect? = nil,
    meter: String = "",
    digits: UInt32 = 0,
    decimals: UInt32 = 0,
    options: [String: String] = [:],
    save: Bool = false,
    stream: String = "",
    examples: [Example] = [],
    dials: [Dial] = [],
    kind: MeterKind? = nil,
    survey: Bool = false,
    foundRow: Bool = false,
    shadows: Bool = false
  ) {
    self.image = image
    self.roi = roi
    self.meter = meter
    self.digits = digits
    self.decimals = decimals
    self.options = options
    self.save = save
    self.stream = stream
    self.examples = examples
    self.dials = dials
    self.kind = kind
    self.survey = survey
    self.foundRow = foundRow
    self.shadows = shadows
  }
}

/// A row of digits the host found in a whole photo and had read (``ReadResult/windows``).
public struct Window: Hashable, Sendable {
  /// The upright box the row was cut from.
  public var box: Rect
  public var value: String
  public var confidence: Double
  /// The box around the row's digits alone, inside ``box``: smaller for a turned row. Nil from
  /// a host that does not send it.
  public var digits: Rect?

  public init(box: Rect, value: String, confidence: Double, digits: Rect? = nil) {
    self.box = box
    self.value = value
    self.confidence = confidence
    self.digits = digits
  }
}

extension Rect {
  /// The rectangle where it lies once its image (`width` x `height` pixels) is turned
  /// `quarterTurns` quarter turns clockwise (negative: anticlockwise).
  public func turned(quarterTurns: Int, width: Int32, height: Int32) -> Rect {
    var (rect, size) = (self, (width: width, height: height))
    for _ in 0..<((quarterTurns % 4 + 4) % 4) {
      rect = Rect(x: size.height - rect.y - rect.height, y: rect.x, width: rect.height, height: rect.width)
      size = (size.height, size.width)
    }
    return rect
  }

  /// The rectangle in an image scaled by `factor` (2: twice the pixels a side), its edges rounded
  /// outwards so that it still holds what it held.
  public func scaled(by factor: Double) -> Rect {
    let left = (Double(x) * factor).rounded(.down), top = (Double(y) * factor).rounded(.down)
    let right = (Double(x + width) * factor).rounded(.up), bottom = (Double(y + height) * factor).rounded(.up)
    return Rect(x: Int32(left), y: Int32(top), width: Int32(right - left), height: Int32(bottom - top))
  }
}

extension Window {
  /// The window in its photo scaled by `factor`: its boxes scaled with it.
  public func scaled(by factor: Double) -> Window {
    var window = self
    window.box = box.scaled(by: factor)
    window.digits = digits?.scaled(by: factor)
    return window
  }

  /// The window where it lies once its photo (`width` x `height` pixels) is turned
  /// `quarterTurns` quarter turns clockwise: its boxes turned with it.
  public func turned(quarterTurns: Int, width: Int, height: Int) -> Window {
    var window = self
    window.box = box.turned(quarterTurns: quarterTurns, width: Int32(width), height: Int32(height))
    window.digits = digits?.turned(quarterTurns: quarterTurns, width: Int32(width), height: Int32(height))
    return window
  }
}

/// A pointer dial: a meter's x0.1, x0.01... dial below its wheels.
public struct Dial: Hashable, Sendable {
  /// The box around the dial: its ring, and its numbers when they stand outside it.
  public var region: Rect
  /// What one division is worth in the meter's unit: 0.1, 0.01, ...
  public var factor: Double
  /// The numbers run anticlockwise.
  public var counterClockwise: Bool

  public init(region: Rect, factor: Double, counterClockwise: Bool = false) {
    self.region = region
    self.factor = factor
    self.counterClockwise = counterClockwise
  }
}

/// A reading the user confirmed or corrected: the crop that was read and its true value.
public struct Example: Hashable, Sendable {
  /// Names this crop and value; a corrected value makes a new key.
  public var key: String
  /// The true value as on the display, e.g. `01234.567`.
  public var value: String
  /// The crop as PNG; empty unless the plugin asked for it.
  public var crop: [UInt8]

  public init(key: String, value: String, crop: [UInt8] = []) {
    self.key = key
    self.value = value
    self.crop = crop
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
  /// A counter wheel caught between two digits, when the engine can tell.
  public var roll: WheelRoll?

  public init(
    text: String, confidence: Double, box: Rect? = nil, alternatives: [Alternative] = [], roll: WheelRoll? = nil
  ) {
    self.text = text
    self.confidence = confidence
    self.box = box
    self.alternatives = alternatives
    self.roll = roll
  }
}

extension Symbol {
  /// Where a wheel or a dial's pointer stands, in [0, 10): the digit it has passed plus its roll
  /// (4.7 for a "4" rolled 0.7 towards 5); 0 for a symbol that is no digit.
  public var position: Double {
    (Double(roll?.from ?? text) ?? 0) + (roll?.fraction ?? 0)
  }
}

/// A counter wheel caught between two digits: it shows `from` rolled `fraction` of the way to the
/// next digit (the meterdigits labels' x.t is from x, fraction t/10).
public struct WheelRoll: Hashable, Sendable {
  /// The most confidence a digit on a wheel caught mid-roll is given: which of its two digits
  /// the meter shows is the meter's convention's call and its previous reading's, not the image's.
  public static let confidenceLimit = 0.95

  /// The lower digit: "4" between 4 and 5, "9" between 9 and 0.
  public var from: String
  /// Above 0 and below 1.
  public var fraction: Double

  public init(from: String, fraction: Double) {
    self.from = from
    self.fraction = fraction
  }

  /// Whether a wheel so caught reads as `digit`: `from`, or the next digit once rolled past
  /// half-way, as the reading convention has it.
  public func fits(_ digit: String) -> Bool {
    guard let from = Int(from), let digit = Int(digit) else { return false }
    return digit == from || digit == (from + 1) % 10
  }
}

/// A read plugin's answer.
public struct EngineReading: Hashable, Sendable {
  public var text: String
  /// 0 to 1.
  public var confidence: Double
  public var symbols: [Symbol]
  /// Keys of examples that came without their crop and that the plugin has not learnt: the host
  /// asks again with those crops attached.
  public var missingExamples: [String]
  /// A ``ReadRequest/survey`` read that left out what refines a reading: read without it, the
  /// same image may read otherwise.
  public var refinable: Bool

  public init(
    text: String, confidence: Double, symbols: [Symbol] = [], missingExamples: [String] = [], refinable: Bool = false
  ) {
    self.text = text
    self.confidence = confidence
    self.symbols = symbols
    self.missingExamples = missingExamples
    self.refinable = refinable
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
  public var flags: [ReadFlag]
  /// One line a client can show or speak.
  public var summary: String
  /// The region that was read, as PNG.
  public var crop: Image?
  /// Per character of ``value`` (decimal separator excluded): the vote and its runners-up.
  public var digits: [Symbol]
  /// The engines' top answer before plausibility repair; empty when nothing was repaired.
  public var unrepairedValue: String
  /// The meter read, given or identified.
  public var meter: String
  /// The stored reading's id when the request asked to save it, else 0.
  public var readingID: UInt64
  /// Frames of the stream so far (0 for a single photo), and whether the value has converged.
  public var frames: UInt32
  public var isFinal: Bool
  /// Per pointer dial, coarsest first: its digit, how far past it the pointer stands (``Symbol/roll``),
  /// its confidence and box. ``value`` carries their digits.
  public var dials: [Symbol]
  /// When the host found the digits itself: the rows it found and read, the one taken first
  /// (``crop`` is that one).
  public var windows: [Window]

  public init(
    value: String,
    confidence: Double,
    engines: [EngineAnswer],
    flags: [ReadFlag],
    summary: String,
    crop: Image? = nil,
    digits: [Symbol] = [],
    unrepairedValue: String = "",
    meter: String = "",
    readingID: UInt64 = 0,
    frames: UInt32 = 0,
    isFinal: Bool = false,
    dials: [Symbol] = [],
    windows: [Window] = []
  ) {
    self.value = value
    self.confidence = confidence
    self.engines = engines
    self.flags = flags
    self.summary = summary
    self.crop = crop
    self.digits = digits
    self.unrepairedValue = unrepairedValue
    self.meter = meter
    self.readingID = readingID
    self.frames = frames
    self.isFinal = isFinal
    self.dials = dials
    self.windows = windows
  }
}
