import PhotometerProtocol

/// Which of the digit rows found in a whole photo is *the* reading (a photo of a glucose meter
/// with a clock beside its value, a thermometer on a leaflet).
///
/// Each row has been read. When the device's kind is known, a row whose value fits the kind (lies
/// in its physical range, ``Plausibility/physicalRange(_:unit:)``, either unit, in one of the
/// kind's ``formats(of:)``) wins, chosen among those as below; when none does, the rows are read
/// again told each of the kind's formats (``rereads(_:kind:)``), and the surest re-read that fits
/// wins. Otherwise, among the rows read with some confidence the one with the most of prominence
/// (the finder's score: more digits, taller), confidence and agreement between the digits read
/// and the digits the finder saw; else the most confident. Either way a surer cut of the same
/// display takes the chosen row's place (``surerCut(of:among:in:)``).
public enum WindowChoice {
  /// A row found and read.
  public struct Candidate: Sendable {
    public var box: Rect
    /// The finder's score: more digits, taller, more alike.
    public var score: Double
    /// How many digits the finder saw in the row.
    public var digits: Int
    public var value: String
    public var confidence: Double

    public init(box: Rect, score: Double, digits: Int, value: String, confidence: Double) {
      self.box = box
      self.score = score
      self.digits = digits
      self.value = value
      self.confidence = confidence
    }

    /// How many digits were read in the row (``digits`` is how many the finder saw).
    public var digitsRead: Int { value.filter(\.isNumber).count }

    /// Prominence, confidence and agreement of the digit counts together.
    public var weight: Double {
      let agreement = Double(min(digitsRead, digits)) / Double(max(digitsRead, digits, 1))
      return score * confidence * agreement
    }
  }

  /// How many of the rows found in a whole photo are read (the host's and the find benchmark's):
  /// 4, since a box around another is a row of its own (docs/recognizers.md, *Four rows read*);
  /// 8 for a blood-pressure monitor, whose three lines (the pulse's small) rank among its labels'
  /// rows.
  public static func rowsRead(for kind: MeterKind?) -> Int {
    kind == .bloodPressure ? 8 : 4
  }

  /// The least longer side a whole photo is searched for rows at: a larger JPEG (a phone's 4,000
  /// pixels) is decoded by libjpeg at a half, a quarter or an eighth of its size, the smallest
  /// that keeps this, in a fraction of a whole decode's time, and its windows' boxes are scaled
  /// back. The row finders work at 640 pixels and the reader at 32 a row: a row 10 pixels high
  /// to the finders is 25-50 here (docs/recognizers.md, *Whole photos from a phone*).
  public static let searchSide = 1600

  /// A photo whose shorter side is under ``smallestScene`` pixels, or whose best row of two digits
  /// or more, joined by the rows beside it in its line (``isScene(width:height:rows:)``), covers
  /// more than ``windowShare`` of its area or (with its margin) more than ``rowShare`` of its
  /// width, is itself a digit window (a crop, a strip, a counter's window): it is read whole.
  public static let smallestScene = 160
  public static let windowShare = 0.4
  public static let rowShare = 0.7
  /// A photo this many times wider than high or more is a window cropped from one (a phone's
  /// photos are 4:3 or 16:9): read whole, however its rows are found.
  public static let stripAspect = 2.5
  /// The share of a photo's height its best row's line fills in a photo that is itself a window
  /// (cut close above and below); a scene's digits never do.
  public static let fullHeight = 0.85

  /// A photo this many times wider than high or more, searched for rows, is read whole as well
  /// (a phone's photos are at most 16:9, 1.78): a display cropped close has its digits found
  /// each alone, one of them taken for the row.
  public static let windowAspect = 1.8
  /// A photo searched for rows whose chosen row is read less surely than this is read whole as
  /// well, whatever its shape: a display cropped close, or with a margin, has its digits found
  /// each alone; a scene's chosen row is seldom this unsure (docs/recognizers.md, R165).
  public static let doubtedRow = 0.9

  /// Whether a photo of this size, searched for rows and its chosen row read at `confidence`, is
  /// read whole as well. Not a blood-pressure monitor told the kind: its lines are found in it,
  /// or cut from it whole when none are.
  public static func mayBeWindow(width: Int, height: Int, chosen confidence: Double, kind: MeterKind?) -> Bool {
    isWide(width: width, height: height) || (kind != .bloodPressure && confidence < doubtedRow)
  }

  /// Whether a photo of this size, searched for rows, judged no scene and read whole at
  /// `confidence`, has its rows read as a scene's as well: the edge of the photo or of the
  /// surface under a device, found as its best row, makes a scene look like a window (R173). Not
  /// a counter's window, wide, whose rows are its wheels (R174), nor a blood-pressure monitor
  /// told the kind.
  public static func mayBeScene(width: Int, height: Int, whole confidence: Double, kind: MeterKind?) -> Bool {
    !isWide(width: width, height: height) && kind != .bloodPressure && confidence < doubtedRow
  }

  /// Whether a photo of this size is ``windowAspect`` times wider than high or more.
  static func isWide(width: Int, height: Int) -> Bool {
    Double(width) >= windowAspect * Double(height)
  }

  /// Whether `reading` is taken over `other`, two readings of one photo (read whole, and its row
  /// chosen; either way round): surer, with as many digits or more, and fitting the device's
  /// `kind` when it is known.
  public static func prefers(_ reading: ReadResult, over other: ReadResult, kind: MeterKind?) -> Bool {
    reading.confidence > other.confidence
      && reading.value.filter(\.isNumber).count >= other.value.filter(\.isNumber).count
      && kind.map { fits(inFormat(reading.value, kind: $0), kind: $0) } ?? true
  }

  /// Whether rows should be found and read in a photo of this size with these rows found (best
  /// first, each with the digits the finder counts in it), rather than the photo read whole: by
  /// the best row of two digits or more, with the rows found in its line. A row of one digit is
  /// no window's (a monitor's close lines or its body are found as one tall box over most of the
  /// photo); it counts only when no row holds two.
  public static func isScene(width: Int, height: Int, rows: [(box: Rect, digits: Int)]) -> Bool {
    guard let best = (rows.first { $0.digits >= 2 } ?? rows.first)?.box else {
      return isScene(width: width, height: height, best: nil)
    }
    // A counter's window photographed close: the frames between its wheels split its digits into
    // rows found side by side, each a part of its width (a window cropped from a phone's photo).
    // They touch or overlap; a label's number beside a display stands apart.
    var line = best
    var others = rows.map(\.box).filter { inLine($0, with: best) }
    while let next = others.firstIndex(where: { touches($0, line, within: Int(best.height) / 2) }) {
      line = Rect(around: [line, others.remove(at: next)])
    }
    guard Double(line.height) < fullHeight * Double(height) else { return false }
    return isScene(width: width, height: height, best: line)
  }

  /// Whether `box` is a row in `row`'s line: its middle within `row`'s height, between half and
  /// twice as tall, and not around it (a monitor's lines are found as one box around each).
  static func inLine(_ box: Rect, with row: Rect) -> Bool {
    let middle = Int(box.y) + Int(box.height) / 2
    let around =
      box.x <= row.x && box.y <= row.y && box.x + box.width >= row.x + row.width
      && box.y + box.height >= row.y + row.height
    return (Int(row.y)...Int(row.y) + Int(row.height)).contains(middle)
      && 2 * Int(box.height) >= Int(row.height) && Int(box.height) <= 2 * Int(row.height) && !around
  }

  /// Whether `box` overlaps `line` across or stands at most `gap` pixels beside it.
  static func touches(_ box: Rect, _ line: Rect, within gap: Int) -> Bool {
    Int(box.x) <= Int(line.x) + Int(line.width) + gap && Int(line.x) <= Int(box.x) + Int(box.width) + gap
  }

  /// Whether a photo of this size whose best row (or lines' box) is `best` should have its rows
  /// read rather than be read whole; never with no row, nor for a photo ``stripAspect`` times
  /// wider than high.
  public static func isScene(width: Int, height: Int, best: Rect?) -> Bool {
    guard min(width, height) >= smallestScene, Double(width) < stripAspect * Double(height), let best else {
      return false
    }
    return Double(best.width) * Double(best.height) < windowShare * Double(width) * Double(height)
      && Double(best.width) < rowShare * Double(width)
  }

  /// The least confidence for a row to count as read rather than as something that looks like
  /// digits.
  public static let readConfidence = 0.5

  /// The index of the chosen candidate; nil when none was read at all.
  public static func choose(_ candidates: [Candidate], kind: MeterKind?) -> Int? {
    let read = candidates.indices.filter { !candidates[$0].value.isEmpty }
    guard !read.isEmpty else { return nil }
    if let kind {
      let fitting = read.filter { fits(candidates[$0].value, kind: kind) }
      if let best = weightiest(fitting, of: candidates) {
        return surerCut(of: best, among: fitting, in: candidates)
      }
    }
    return weightiest(read, of: candidates).map { surerCut(of: $0, among: read, in: candidates) }
  }

  /// `chosen`, or the surest of `indices` that cuts the same display more surely: overlapping
  /// it by half the smaller box or more and at least half as tall (a label inside a display is
  /// not), read at ``doubtedRow`` or more and surer than it, with as many digits or more. The
  /// search cuts a display twice, by its frame and by its digits, and the frame's cut, more
  /// prominent, is often read unsurely and wrong (30.1 at 0.69 over 37.1 at 0.92); a tight cut
  /// that lost a leading digit (11 for 311) holds fewer (docs/recognizers.md, R169-R171).
  static func surerCut(of chosen: Int, among indices: [Int], in candidates: [Candidate]) -> Int {
    let taken = candidates[chosen]
    let surer = indices.filter { index in
      let cut = candidates[index]
      return index != chosen && cut.confidence >= doubtedRow && cut.confidence > taken.confidence
        && cut.digitsRead >= taken.digitsRead && 2 * cut.box.height >= taken.box.height
        && sharesHalf(cut.box, taken.box)
    }
    return surer.max { candidates[$0].confidence < candidates[$1].confidence } ?? chosen
  }

  /// Whether `a` and `b` overlap by half the smaller's area or more.
  static func sharesHalf(_ a: Rect, _ b: Rect) -> Bool {
    let shared = a.overlapArea(with: b)
    return shared > 0 && 2 * shared >= min(a.area, b.area)
  }

  /// Among `indices` of `candidates`, the weightiest of those read with ``doubtedRow`` or more
  /// that hold two digits or more (a display's value; a lone sure digit is an icon's or a ghost's
  /// as often), else of those read with ``readConfidence`` or more, else the most confident; nil
  /// for none. A large row read unsurely is a device's frame or label more often than a small sure
  /// row is (docs/recognizers.md, R193).
  static func weightiest(_ indices: [Int], of candidates: [Candidate]) -> Int? {
    let sure = indices.filter { candidates[$0].confidence >= doubtedRow && candidates[$0].digitsRead >= 2 }
    let confident = indices.filter { candidates[$0].confidence >= readConfidence }
    for tier in [sure, confident] {
      if let best = tier.max(by: { candidates[$0].weight < candidates[$1].weight }) {
        return best
      }
    }
    return indices.max { candidates[$0].confidence < candidates[$1].confidence }
  }

  /// `value`, read from a row with no point, with the point of `inner`, the same row's digits cut
  /// tight and read again (``PhotometerVision/VisionImage/innerDigitRow()``): when `inner` holds
  /// the same digits and one point, read at ``pointConfidence`` or more. Nil otherwise: the tight
  /// cut only ever places a point the frame's cut left too small to see, it never changes a digit
  /// (docs/recognizers.md, R160).
  public static func pointed(_ value: String, by inner: String, confidence: Double) -> String? {
    guard needsPoint(value), confidence >= pointConfidence, inner.filter({ $0 == "." }).count == 1,
      inner.filter(\.isNumber) == value
    else { return nil }
    return inner
  }

  /// Whether a row read `value` not told the kind is read again cut tight for a point: two
  /// digits or more and no point.
  public static func needsPoint(_ value: String) -> Bool {
    !value.isEmpty && value.allSatisfy(\.isNumber) && value.count >= 2
  }

  /// Whether a photo read whole with no window given, `value` read not told the kind, is read
  /// again cut tight for a point (R166): as ``needsPoint(_:)``, with four digits or fewer, a
  /// display's value; a counter's window (five digits or more) shows its decimals on wheels.
  public static func wholeNeedsPoint(_ value: String) -> Bool {
    needsPoint(value) && value.count <= 4
  }

  /// The least confidence of a tight cut's reading whose point is taken.
  public static let pointConfidence = 0.9

  /// The rows holding a display's values one a line, top to bottom (a blood-pressure monitor's
  /// systolic, diastolic and pulse): `count` rows, each wider than tall (a taller box is rows
  /// found as one), below the one before it (``isBelow(_:_:)``), each read as a whole number, whose
  /// values joined with `/` `allow`. The weightiest such rows (the sum of their weights), in
  /// order; nil when no rows fit.
  public static func lines(_ candidates: [Candidate], count: Int, allow: (String) -> Bool) -> [Int]? {
    var best: (rows: [Int], weight: Double)?
    func extend(_ rows: [Int]) {
      guard rows.count < count else {
        let value = rows.map { candidates[$0].value }.joined(separator: "/")
        let weight = rows.reduce(0) { $0 + candidates[$1].weight }
        if allow(value), weight > best?.weight ?? -1 {
          best = (rows, weight)
        }
        return
      }
      for next in candidates.indices
      where !rows.contains(next) && candidates[next].box.width > candidates[next].box.height {
        if let last = rows.last, !isBelow(candidates[next].box, candidates[last].box) { continue }
        if candidates[next].value.isEmpty || !candidates[next].value.allSatisfy(\.isNumber) { continue }
        extend(rows + [next])
      }
    }
    extend([])
    return best?.rows
  }

  /// A blood-pressure monitor's systolic, diastolic and pulse lines among `candidates` (the first
  /// two alone for `fields` 2): the ``lines(_:count:allow:)`` whose values make a blood pressure
  /// as a monitor shows them (``Plausibility/bloodPressure(_:)``). With `sure` (no kind told, so
  /// the lines must say it themselves) only rows read with ``readConfidence`` or more count. A
  /// monitor shows no decimal point: a row read "7.2" counts as 72.
  public static func bloodPressureLines(_ candidates: [Candidate], sure: Bool = false, fields: Int = 3) -> [Int]? {
    let eligible = candidates.map { candidate in
      var candidate = candidate
      candidate.value = sure && candidate.confidence < readConfidence ? "" : candidate.value.filter { $0 != "." }
      return candidate
    }
    return lines(eligible, count: fields) { Plausibility.bloodPressure($0) != nil }
  }

  /// Whether a photo's reading as it came (`asCame`) is kept over the search of the photo turned
  /// as the orientation finder names it, however sure that is: a monitor's fields, stacked lines
  /// making a blood pressure, say the photo stands as it came, unless the turned reading makes one
  /// too (R209: a turned search's single row, read a little surer, had replaced monitors read
  /// right).
  public static func keepsAsCame(_ asCame: String, over turned: String) -> Bool {
    Plausibility.allowsBloodPressure(asCame) && !Plausibility.allowsBloodPressure(turned)
  }

  /// Whether `lower` is the line of the same display next below `upper`: its middle lower than the
  /// other's by a quarter of the shorter row's height or more, the two overlapping across by a
  /// quarter of the narrower one's width (the upright boxes of a turned display's rows are tall,
  /// and its small pulse, aligned right, overlaps the diastolic by little), and its box starting
  /// no further below `upper`'s than ``lineGap`` of that box's height: a display's lines stand
  /// close, and a row further down leaves room for a line not found between them (a monitor's
  /// small pulse missed and the round buttons below the display read as its pulse, R210).
  static func isBelow(_ lower: Rect, _ upper: Rect) -> Bool {
    let drop = Double(lower.y) + Double(lower.height) / 2 - Double(upper.y) - Double(upper.height) / 2
    let across =
      Double(min(lower.x + lower.width, upper.x + upper.width)) - Double(max(lower.x, upper.x))
    let gap = Double(lower.y) - Double(upper.y + upper.height)
    return drop >= Double(min(lower.height, upper.height)) / 4
      && across >= Double(min(lower.width, upper.width)) / 4 && gap <= lineGap * Double(upper.height)
  }

  /// How far below a line's box, in its height, the next line's box may start (boxes with their
  /// margins; lines one under another overlap).
  static let lineGap = 0.5

  /// Whether `value` is one a device of `kind` shows, in either of its units and one of its
  /// formats.
  public static func fits(_ value: String, kind: MeterKind) -> Bool {
    guard let number = Double(value) else { return false }
    let ranges = ["mg/dL", "mmol/L", "C", "F"].compactMap { Plausibility.physicalRange(kind, unit: $0) }
    let formats = formats(of: kind)
    return (ranges.isEmpty || ranges.contains { $0.contains(number) })
      && (formats.isEmpty || formats.contains(DisplayFormat(of: value)))
  }

  /// `value` as a display of `kind` shows it: as read when it fits the kind, else with its point
  /// placed by the first of the kind's formats of its digit count in which it then fits (a
  /// thermometer's 356, its point not read, is 35.6); as read otherwise.
  public static func inFormat(_ value: String, kind: MeterKind) -> String {
    guard !value.contains("."), !fits(value, kind: kind) else { return value }
    let digits = value.filter(\.isNumber).count
    return formats(of: kind).lazy.filter { $0.digits == digits }.map { $0.apply(to: value) }
      .first { fits($0, kind: kind) } ?? value
  }

  /// The value a device of `kind` reads, `value` taken (``inFormat(_:kind:)``): a kind with
  /// formats (a thermometer, a glucose meter) shows a number, never a leading zero, so a blank
  /// place's ghost segments read as one are dropped (039.1 is 39.1, 043 is 43; R183). Only the
  /// value taken: a clock's 0427 among the rows is no glucose meter's 427. A counter keeps its
  /// zeros.
  public static func shown(_ value: String, kind: MeterKind) -> String {
    inFormat(formats(of: kind).isEmpty ? value : withoutLeadingZeros(value), kind: kind)
  }

  /// `value` without the zeros that lead its whole part, which keeps one digit (00.5 is 0.5).
  static func withoutLeadingZeros(_ value: String) -> String {
    var rest = Substring(value)
    while rest.first == "0", let next = rest.dropFirst().first, next.isNumber {
      rest = rest.dropFirst()
    }
    return String(rest)
  }

  /// How a display shows a value: how many digits, and how many of them after the point.
  public struct DisplayFormat: Sendable, Hashable {
    public var digits: Int
    public var decimals: Int

    public init(digits: Int, decimals: Int) {
      self.digits = digits
      self.decimals = decimals
    }

    /// The format of a value as read ("36.7": 3 digits, 1 decimal).
    public init(of value: String) {
      digits = value.filter(\.isNumber).count
      decimals = value.firstIndex(of: ".").map { value[$0...].filter(\.isNumber).count } ?? 0
    }

    /// `value` in this format: a value read without a point gets one, `decimals` from the right.
    public func apply(to value: String) -> String {
      value.contains(".") ? value : ReadDecision.withDecimals(value, decimals: decimals)
    }
  }

  /// The formats a display of `kind` shows its value in, likeliest first; empty when the kind says
  /// nothing of it. A body thermometer shows tenths of a degree (36.6 C, 98.6 or 100.4 F); a
  /// glucose meter whole mg/dL (20-600) or tenths of mmol/L (1.1-33.3).
  public static func formats(of kind: MeterKind) -> [DisplayFormat] {
    switch kind {
    case .thermometer:
      [DisplayFormat(digits: 3, decimals: 1), DisplayFormat(digits: 4, decimals: 1)]
    case .glucose:
      [
        DisplayFormat(digits: 3, decimals: 0), DisplayFormat(digits: 2, decimals: 0),
        DisplayFormat(digits: 2, decimals: 1), DisplayFormat(digits: 3, decimals: 1),
      ]
    default: []
    }
  }

  /// A row to read again, told a format: its index among the candidates and the format.
  public struct Reread: Sendable, Hashable {
    public var row: Int
    public var format: DisplayFormat
  }

  /// What to read again when `kind` is known and no candidate fits it: every row, the most
  /// weighty first, in each of the kind's formats (a thermometer's 37.5 read as 375, a ghost
  /// digit read before a glucose meter's 245). Empty when a candidate fits or the kind has no
  /// formats.
  public static func rereads(_ candidates: [Candidate], kind: MeterKind?) -> [Reread] {
    guard let kind, !candidates.contains(where: { fits($0.value, kind: kind) }) else { return [] }
    let rows = candidates.indices.sorted { candidates[$0].weight > candidates[$1].weight }
    return rows.flatMap { row in formats(of: kind).map { Reread(row: row, format: $0) } }
  }

  /// The surest of the re-reads (values in their format, ``DisplayFormat/apply(to:)``) that fits
  /// `kind`; nil when none does.
  public static func chooseReread(_ values: [(value: String, confidence: Double)], kind: MeterKind) -> Int? {
    values.indices.filter { fits(values[$0].value, kind: kind) }.max { values[$0].confidence < values[$1].confidence }
  }
}
