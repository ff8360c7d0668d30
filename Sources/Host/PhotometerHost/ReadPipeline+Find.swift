import DigitReader
import PhotometerProtocol
import PhotometerVision
import PhotometerVoting

extension ReadPipeline {
  /// The row finder's network, loaded at the first whole photo (nil when it cannot be: the
  /// connected-component finder then works alone).
  static let rowFinder: RowFinder? = try? RowFinder.bundled()

  /// The rows of `photo`, at most `limit` a finder, from the shipped finders
  /// (`RowFinder.Finders.shipped`); none when a finder fails.
  static func foundRows(in photo: VisionImage, limit: Int) -> FoundRows {
    guard let rowFinder else {
      return FoundRows(measured: (try? photo.digitRows(limit: limit)) ?? [], found: [], finders: .components)
    }
    return (try? rowFinder.found(in: photo, limit: limit, finders: .shipped))
      ?? FoundRows(measured: [], found: [], finders: .components)
  }

  /// ``readFoundRows(in:request:context:kind:)`` on `image` decoded no smaller than
  /// ``PhotometerVoting/WindowChoice/searchSide`` (a larger JPEG scaled down by libjpeg as it is
  /// decoded), the windows' boxes scaled back to the photo's own pixels. A phone's 12-megapixel
  /// photo took 60 ms to decode whole, and the rows found are read at 32 pixels high. Every row
  /// is sent to the engines as ``ReadRequest/foundRow``.
  func searchRows(in image: Image, request: ReadRequest, context: Context, kind: MeterKind?, asScene: Bool = false)
    async throws(PipelineError) -> (result: ReadResult, row: VisionImage, quarterTurns: Int)?
  {
    var request = request
    request.foundRow = true
    let photo = try Self.decode(image, reducedToAtLeast: WindowChoice.searchSide)
    guard
      var found = try await readFoundRows(in: photo, request: request, context: context, kind: kind, asScene: asScene)
    else {
      return nil
    }
    if photo.scale < 1 {
      found.result.windows = found.result.windows.map { $0.scaled(by: 1 / photo.scale) }
    }
    return found
  }

  /// The rows of digits found in a whole photo (`VisionImage.digitRows`), each read by every
  /// voting engine at once as a survey (``ReadRequest/survey``), and the reading of the one
  /// ``WindowChoice`` takes for `kind`, completed (``completed(_:crop:request:context:)``: read
  /// again by the engines whose survey reading is ``EngineReading/refinable`` and, when their
  /// answers are kept, by the shadows), with every row in
  /// `windows` (the chosen first) and its crop,
  /// and the chosen row's image; for a blood-pressure monitor its lines, found and joined
  /// (``readFoundFields``). Nil when the photo holds no row, or the photo is itself a digit
  /// window (``WindowChoice/isScene(width:height:rows:)``) and not taken `asScene`.
  ///
  /// A photo whose digits the orientation finder sees turned (one that lost its EXIF orientation)
  /// is searched both as it came and turned upright (``upright(_:)``), and the turned search is
  /// taken when its reading is the surer (the network alone takes a stick-shaped body for a
  /// sideways row), or, for a photo upside down, when the row the search as it came took stands
  /// upside down on the finder's map (an upturned seven-segment row reads as digits, surely), and
  /// never over a monitor's fields read as it came unless it reads one too
  /// (``PhotometerVoting/WindowChoice/keepsAsCame(_:over:)``); the
  /// windows' boxes are the photo's as it came, and `quarterTurns` says how far the digits stood
  /// turned clockwise in the search taken (0: as it came).
  func readFoundRows(
    in photo: VisionImage, request: ReadRequest, context: Context, kind: MeterKind?, asScene: Bool = false
  ) async throws(PipelineError) -> (result: ReadResult, row: VisionImage, quarterTurns: Int)? {
    // A small photo is a window already: no rows are looked for.
    guard min(photo.width, photo.height) >= WindowChoice.smallestScene else { return nil }
    let asCame = try await readUprightRows(in: photo, request: request, context: context, kind: kind, asScene: asScene)
      .map { (result: $0.result, row: $0.row, quarterTurns: 0) }
    // A monitor's display told as such is taken as it came: its stacked lines, searched turned,
    // read surer and wrong (RecognizerPluginTests, 3 of 8 right rather than 4 or more).
    guard kind != .bloodPressure else { return asCame }
    guard let (upright, map) = Self.upright(photo),
      var found = try await readUprightRows(
        in: upright, request: request, context: context, kind: kind, asScene: asScene)
    else { return asCame }
    let turns = map.quarterTurns
    found.result.windows = found.result.windows.map {
      $0.turned(quarterTurns: turns, width: upright.width, height: upright.height)
    }
    // Upside down, a row is taken by where the map holds turned digits as well: a row turned 180 is
    // found and read as digits, surely; a sideways one is seldom found as it came, and the
    // finder's map takes a stick-shaped body's display for one.
    guard
      !WindowChoice.keepsAsCame(asCame?.result.value ?? "", over: found.result.value),
      map.takesTurned(
        asCame: asCame?.result.windows.first?.box, turned: found.result.windows.first?.box,
        surer: found.result.confidence > asCame?.result.confidence ?? -1)
    else { return asCame }
    return (found.result, found.row, turns)
  }

  /// The orientation finder's network, loaded at the first whole photo (nil when it cannot be:
  /// photos are then searched as they come).
  static let orientationFinder: OrientationFinder? = try? OrientationFinder.bundled()

  /// `photo` turned upright, and the orientation finder's map of it as it came (whose
  /// ``TurnMap/quarterTurns`` say how far its digits stood turned); nil when they stand upright,
  /// when the finder is not sure, or without it.
  static func upright(_ photo: VisionImage) -> (photo: VisionImage, map: TurnMap)? {
    guard let map = try? orientationFinder?.map(of: photo), map.quarterTurns != 0,
      let upright = try? photo.turned(quarterTurns: -map.quarterTurns)
    else { return nil }
    return (upright, map)
  }

  /// ``readFoundRows(in:request:context:kind:)`` on a photo whose digits stand upright.
  private func readUprightRows(
    in photo: VisionImage, request: ReadRequest, context: Context, kind: MeterKind?, asScene: Bool
  ) async throws(PipelineError) -> (result: ReadResult, row: VisionImage)? {
    // Not told the kind, searched as for a monitor at once: the rows read first are the search's
    // first, and a monitor's lines are looked for among the rest without a second search.
    let search = Self.foundRows(in: photo, limit: WindowChoice.rowsRead(for: kind ?? .bloodPressure))
    let rows = search.rows(limit: WindowChoice.rowsRead(for: kind))
    // A monitor's close lines are often found as one tall row as well: its photo is judged by the
    // box around its lines (readFoundFields).
    guard
      kind == .bloodPressure || asScene
        ? !rows.isEmpty
        : WindowChoice.isScene(width: photo.width, height: photo.height, rows: rows.map { ($0.box, $0.digits) })
    else {
      return nil
    }
    let (images, crops) = try Self.cut(rows, of: photo)
    var results = try await fanOutEach(crops.map { ($0, context) }, request: request, survey: true)
    // A blood-pressure monitor's lines: told the kind and finding none, the photo is the display
    // itself (nil: its lines are cut from it whole); not told, lines that make one surely.
    if kind == .bloodPressure {
      return try await readFoundFields(
        rows: rows, crops: crops, surveys: results, in: photo, request: request, context: context, told: true)
    }
    if kind == nil {
      if let fields = try await readFoundFields(
        rows: rows, crops: crops, surveys: results, in: photo, request: request, context: context, told: false)
      {
        return fields
      }
      if let fields = try await readMoreLines(
        rows: rows, crops: crops, surveys: results, search: search, in: photo, request: request, context: context)
      {
        return fields
      }
    }
    // Judged as they will be shown: with the meter's decimals (a registered thermometer's 375 is
    // 37.5), or in its kind's format (told a thermometer, 375 read without its point is 37.5).
    func shown(_ value: String) -> String {
      let placed = ReadDecision.withDecimals(value, decimals: Int(context.decimals))
      return kind.map { WindowChoice.inFormat(placed, kind: $0) } ?? placed
    }
    var candidates = zip(rows, results).map { row, result in
      WindowChoice.Candidate(
        box: row.box, score: row.score, digits: row.digits, value: shown(result.value), confidence: result.confidence)
    }
    let chosen: Int
    if let kind,
      let reread = try await readInFormat(candidates, crops: crops, request: request, context: context, kind: kind)
    {
      chosen = reread.row
      results[chosen] = reread.result
      candidates[chosen].value = reread.result.value
      candidates[chosen].confidence = reread.result.confidence
    } else if let choice = WindowChoice.choose(candidates, kind: kind) {
      chosen = choice
      results[chosen] = await completed(results[chosen], crop: crops[chosen], request: request, context: context)
      if kind == nil, context.decimals == 0,
        let value = try await pointed(results[chosen].value, in: images[chosen], request: request, context: context)
      {
        results[chosen].value = value
      }
      if let kind {
        results[chosen].value = WindowChoice.inFormat(results[chosen].value, kind: kind)
      }
      candidates[chosen].value = shown(results[chosen].value)
      candidates[chosen].confidence = results[chosen].confidence
    } else {
      return nil
    }
    var result = results[chosen]
    result.crop = crops[chosen]
    let order = [chosen] + candidates.indices.filter { $0 != chosen }
    result.windows = order.map {
      Window(
        box: candidates[$0].box, value: candidates[$0].value, confidence: candidates[$0].confidence,
        digits: rows[$0].digitBoxInPhoto)
    }
    return (result, images[chosen])
  }

  /// `value`, the reading of the row `crop` taken with no kind told and no point, with the point
  /// its digits cut tight show (``PhotometerVision/VisionImage/innerDigitRow()``, read in full,
  /// ``PhotometerVoting/WindowChoice/pointed(_:by:confidence:)``): a row cut with its display's
  /// frame puts a thermometer's point at a pixel or two of the reader's height. Nil when it shows
  /// none. `survey`: the tight cut read as a survey (a photo read whole, R166).
  func pointed(_ value: String, in crop: VisionImage, request: ReadRequest, context: Context, survey: Bool = false)
    async throws(PipelineError) -> String?
  {
    guard WindowChoice.needsPoint(value), let inner = crop.innerDigitRow(), let tight = try? crop.rowCrop(inner)
    else { return nil }
    let read = try await fanOutEach([(try Self.forEngines(tight), context)], request: request, survey: survey)
    return read.first.flatMap { WindowChoice.pointed(value, by: $0.value, confidence: $0.confidence) }
  }

  /// Each row straightened and painted clear of side print (`rowCrop`), and its crop as the
  /// engines get it (``forEngines(_:name:)``).
  private static func cut(_ rows: [VisionImage.DigitRow], of photo: VisionImage) throws(PipelineError)
    -> (images: [VisionImage], crops: [Image])
  {
    var images: [VisionImage] = []
    var crops: [Image] = []
    for row in rows {
      do {
        images.append(try photo.rowCrop(row))
      } catch {
        throw .windowNotCut(error)
      }
      crops.append(try forEngines(images[images.count - 1]))
    }
    return (images, crops)
  }

  /// The rows found and their survey readings, as the window choice weighs them.
  private static func candidates(_ rows: [VisionImage.DigitRow], _ surveys: [ReadResult]) -> [WindowChoice.Candidate] {
    zip(rows, surveys).map { row, survey in
      WindowChoice.Candidate(
        box: row.box, score: row.score, digits: row.digits, value: survey.value, confidence: survey.confidence)
    }
  }

  /// Not told the kind, a monitor whose lines did not all rank among the rows read: when two of
  /// them stack as its systolic and diastolic, read surely, the rows a monitor is searched with
  /// (``WindowChoice/rowsRead(for:)``, from the photo's one `search`) that are new are surveyed
  /// too and the lines looked for
  /// among all (``readFoundFields``), then the pulse below them; failing that, or with no such
  /// two, below the weightiest row read surely in the systolic range, the fields not found are
  /// read from the display grown down from it
  /// (``readRest(below:rows:crops:surveys:in:request:context:)``). Nil otherwise.
  private func readMoreLines(
    rows: [VisionImage.DigitRow], crops: [Image], surveys: [ReadResult], search: FoundRows, in photo: VisionImage,
    request: ReadRequest, context: Context
  ) async throws(PipelineError) -> (result: ReadResult, row: VisionImage)? {
    let candidates = Self.candidates(rows, surveys)
    if let pair = WindowChoice.bloodPressureLines(candidates, sure: true, fields: 2) {
      let more = search.rows(limit: WindowChoice.rowsRead(for: .bloodPressure)).filter { found in
        !rows.contains { $0.box == found.box }
      }
      if !more.isEmpty {
        let added = try Self.cut(more, of: photo).crops
        let read = try await fanOutEach(added.map { ($0, context) }, request: request, survey: true)
        if let fields = try await readFoundFields(
          rows: rows + more, crops: crops + added, surveys: surveys + read, in: photo, request: request,
          context: context, told: false)
        {
          return fields
        }
      }
      if let fields = try await readRest(
        below: pair, rows: rows, crops: crops, surveys: surveys, in: photo, request: request, context: context)
      {
        return Self.listing(fields, rows: rows, candidates: candidates, besides: pair)
      }
    }
    let systolic = candidates.indices.filter {
      candidates[$0].confidence >= WindowChoice.readConfidence
        && Double(Plausibility.bloodPressureField(candidates[$0].value)).map(Plausibility.systolic.contains) ?? false
    }
    for first in systolic.sorted(by: { candidates[$0].weight > candidates[$1].weight }).prefix(Self.systolicsTried) {
      if let fields = try await readRest(
        below: [first], rows: rows, crops: crops, surveys: surveys, in: photo, request: request, context: context)
      {
        return Self.listing(fields, rows: rows, candidates: candidates, besides: [first])
      }
    }
    return nil
  }

  /// The fields of a monitor not found as rows: `lines` are its first fields (one or two of
  /// `rows`, the systolic and maybe the diastolic, read surely); the rest are read from the
  /// display grown down from the systolic row (``displayBelow(_:in:)``) as a monitor's fields, and
  /// joined with the rows' fields (completed, as ``readLines`` completes them); in `windows` the
  /// display's box and the lines' rows (the caller lists the other rows). Nil when the
  /// display is most of the photo, a field it gives is read with less than
  /// ``WindowChoice/readConfidence`` (a diastolic below a systolic row alone, with less than
  /// ``unvouchedFieldConfidence``; the pulse below them then needs only the former), or the three
  /// make no blood pressure; or when a diastolic row is less than ``diastolicHeightShare`` of the
  /// systolic's height.
  private func readRest(
    below lines: [Int], rows: [VisionImage.DigitRow], crops: [Image], surveys: [ReadResult],
    in photo: VisionImage, request: ReadRequest, context: Context
  ) async throws(PipelineError) -> (result: ReadResult, row: VisionImage)? {
    let heights = lines.map { Double(rows[$0].box.height) }
    guard heights.allSatisfy({ $0 >= Self.diastolicHeightShare * heights[0] }),
      let (box, display) = try displayBelow(rows[lines[0]], in: photo)
    else { return nil }
    let ranges = Plausibility.bloodPressureFields
    let sure = lines.count > 1 ? WindowChoice.readConfidence : Self.unvouchedFieldConfidence
    let rest = try await readEachField(
      display, ranges: ranges, request: request, context: context, from: lines.count,
      until: sure, lines: .topmost)
    // Two lines read surely, rows or the first read from the display, vouch for the pulse below
    // them (R211, R212).
    let bars = ranges.indices.dropFirst(lines.count).map { $0 > 1 ? WindowChoice.readConfidence : sure }
    guard lines.count + rest.count == ranges.count, zip(rest, bars).allSatisfy({ $0.confidence >= $1 }) else {
      return nil
    }
    let found = await completed(lines.map { (surveys[$0], crops[$0]) }, request: request, context: context)
    let fields = zip(found + rest, ranges).map(ReadDecision.monitorField)
    guard Plausibility.allowsBloodPressure(fields.map(\.value).joined(separator: "/")) else { return nil }
    var result = Self.joined(fields)
    result.windows =
      [Window(box: box, value: result.value, confidence: result.confidence, digits: box)]
      + zip(lines, fields).map { line, field in
        Window(
          box: rows[line].box, value: field.value, confidence: field.confidence, digits: rows[line].digitBoxInPhoto)
      }
    return try Self.showing(result, display)
  }

  /// A display's fields on lines of their own (a blood-pressure monitor's systolic, diastolic
  /// and pulse) among the rows found and surveyed: the rows
  /// ``WindowChoice/bloodPressureLines(_:sure:)`` takes, each completed (``readLines``); else,
  /// `told` the kind, two rows read surely as systolic and diastolic with the rest of the display
  /// grown down below them (``readRest(below:rows:crops:surveys:in:request:context:)``), or the
  /// display grown down from each of ``systolicsTried`` rows read in the systolic range, the
  /// surest reading (``readDisplay(below:rows:in:request:context:)``). The fields joined, the box
  /// around them first in `windows`. Nil when neither is found, or when the lines' box or the
  /// display's is most of the photo (a photo of the display alone, whose lines
  /// ``readFields(_:ranges:request:context:)`` cuts). Not `told` the kind, only lines read surely
  /// count.
  private func readFoundFields(
    rows: [VisionImage.DigitRow], crops: [Image], surveys: [ReadResult], in photo: VisionImage,
    request: ReadRequest, context: Context, told: Bool
  ) async throws(PipelineError) -> (result: ReadResult, row: VisionImage)? {
    let candidates = Self.candidates(rows, surveys)
    var found: (result: ReadResult, row: VisionImage)?
    var used: [Int] = []
    if let lines = WindowChoice.bloodPressureLines(candidates, sure: !told) {
      // Lines around most of the photo: the photo is the display itself, cut into its lines whole.
      let box = Rect(around: lines.map { rows[$0].box })
      guard WindowChoice.isScene(width: photo.width, height: photo.height, best: box) else { return nil }
      found = try await readLines(
        lines, around: box, rows: rows, crops: crops, surveys: surveys, in: photo, request: request,
        context: context)
      used = found == nil ? [] : lines
    }
    if found == nil && told, let pair = WindowChoice.bloodPressureLines(candidates, sure: true, fields: 2) {
      found = try await readRest(
        below: pair, rows: rows, crops: crops, surveys: surveys, in: photo, request: request, context: context)
      used = found == nil ? [] : pair
    }
    if found == nil && told {
      let first = candidates.indices.filter {
        Double(candidates[$0].value).map(Plausibility.bloodPressureFields[0].contains) ?? false
      }
      for systolic in first.sorted(by: { candidates[$0].weight > candidates[$1].weight }).prefix(Self.systolicsTried) {
        let read = try await readDisplay(below: systolic, rows: rows, in: photo, request: request, context: context)
        if let read, read.result.confidence > found?.result.confidence ?? -1 {
          found = read
        }
      }
    }
    guard let found else { return nil }
    return Self.listing(found, rows: rows, candidates: candidates, besides: used)
  }

  /// `found` with the rows of `candidates` it did not use (`besides`) after its own windows.
  private static func listing(
    _ found: (result: ReadResult, row: VisionImage), rows: [VisionImage.DigitRow],
    candidates: [WindowChoice.Candidate], besides used: [Int]
  ) -> (result: ReadResult, row: VisionImage) {
    var found = found
    found.result.windows += candidates.indices.filter { !used.contains($0) }.map {
      Window(
        box: rows[$0].box, value: candidates[$0].value, confidence: candidates[$0].confidence,
        digits: rows[$0].digitBoxInPhoto)
    }
    return found
  }

  /// A monitor's `lines` among `rows` (`box` around them, no more than a scene's share of the
  /// photo), their surveys completed and joined; nil when, read in full, they no longer make a
  /// blood pressure (a panel member outvoting a survey).
  private func readLines(
    _ lines: [Int], around box: Rect, rows: [VisionImage.DigitRow], crops: [Image], surveys: [ReadResult],
    in photo: VisionImage, request: ReadRequest, context: Context
  ) async throws(PipelineError) -> (result: ReadResult, row: VisionImage)? {
    let fields = zip(
      await completed(lines.map { (surveys[$0], crops[$0]) }, request: request, context: context),
      Plausibility.bloodPressureFields
    ).map(ReadDecision.monitorField)
    guard Plausibility.allowsBloodPressure(fields.map(\.value).joined(separator: "/")) else { return nil }
    var result = Self.joined(fields)
    let digits = Rect(around: lines.map { rows[$0].digitBoxInPhoto })
    result.windows =
      [Window(box: box, value: result.value, confidence: result.confidence, digits: digits)]
      + zip(lines, fields).map { line, field in
        Window(
          box: rows[line].box, value: field.value, confidence: field.confidence, digits: rows[line].digitBoxInPhoto)
      }
    return try Self.showing(result, cut { () throws(VisionError) in try photo.cropped(box) })
  }

  /// The display below a monitor's systolic row: the row grown down (``displayBelow(_:in:)``) and
  /// read as one display's lines. Nil when that is most of the photo.
  private func readDisplay(
    below systolic: Int, rows: [VisionImage.DigitRow], in photo: VisionImage, request: ReadRequest, context: Context
  ) async throws(PipelineError) -> (result: ReadResult, row: VisionImage)? {
    guard let (box, display) = try displayBelow(rows[systolic], in: photo) else { return nil }
    var result = try await readFields(
      display, ranges: Plausibility.bloodPressureFields, request: request, context: context, lines: .topmost)
    result.windows = [Window(box: box, value: result.value, confidence: result.confidence, digits: box)]
    return try Self.showing(result, display)
  }

  /// The display below a monitor's systolic `row`: the row grown down (``displayBelowRow``,
  /// ``VisionImage/DigitRow/grownDown(to:)``), its box in the photo and its image straightened by
  /// the row's slant. Nil when that is most of the photo.
  private func displayBelow(_ row: VisionImage.DigitRow, in photo: VisionImage) throws(PipelineError)
    -> (box: Rect, display: VisionImage)?
  {
    let corners = row.grownDown(to: Self.displayBelowRow)
    let xs = corners.map { $0.x }, ys = corners.map { $0.y }
    let left = max(0, Int32(xs.min()!)), top = max(0, Int32(ys.min()!))
    let box = Rect(
      x: left, y: top, width: min(Int32(photo.width), Int32(xs.max()!)) - left,
      height: min(Int32(photo.height), Int32(ys.max()!)) - top)
    guard WindowChoice.isScene(width: photo.width, height: photo.height, best: box) else { return nil }
    return (box, try cut { () throws(VisionError) in try photo.straightened(corners) })
  }

  /// Each survey result made a full read's (``completed(_:crop:request:context:)``), all at once;
  /// in order.
  private func completed(_ surveys: [(ReadResult, Image)], request: ReadRequest, context: Context) async
    -> [ReadResult]
  {
    await Self.inOrder(surveys.count) { index in
      await self.completed(surveys[index].0, crop: surveys[index].1, request: request, context: context)
    }
  }

  /// `body` of 0 ..< `count`, all at once; the results in order.
  private static func inOrder<Value: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) async -> Value) async
    -> [Value]
  {
    await withTaskGroup(of: (Int, Value).self) { group in
      for index in 0..<count {
        group.addTask { (index, await body(index)) }
      }
      var values = [Value?](repeating: nil, count: count)
      for await (index, value) in group {
        values[index] = value
      }
      return values.compactMap { $0 }
    }
  }

  /// `result` with `display` as its crop, and `display`.
  private static func showing(_ result: ReadResult, _ display: VisionImage) throws(PipelineError)
    -> (result: ReadResult, row: VisionImage)
  {
    var result = result
    do {
      result.crop = Image(data: try display.encoded(), name: "crop.png")
    } catch {
      throw .windowNotCut(error)
    }
    return (result, display)
  }

  /// How far below its systolic row a blood-pressure monitor's display is cut when its lines are
  /// not all found, in the row's heights (with its margins): the diastolic at 0.9 of the
  /// systolic's size, the pulse at about half, and the gaps.
  static let displayBelowRow: Float = 2.2

  /// A monitor's diastolic is drawn about as large as its systolic; a row under a value that is
  /// less than this share of its height is a memory number or a clock, no diastolic.
  static let diastolicHeightShare = 0.6

  /// Below a systolic row alone, a display's fields must be read this surely (the reader panel's
  /// own bar, ``ReaderPanel/defaultConsultBelow``): a glucose meter's body below its value, cut
  /// into lines and read again told 3 and 2 digits, gives values in range at 0.6.
  static let unvouchedFieldConfidence = ReaderPanel.defaultConsultBelow

  /// Told a monitor whose lines were not found, the display is grown down from this many rows
  /// read in the systolic range, the weightiest first, and the surest reading kept: a diastolic
  /// or pulse in that range may outweigh the systolic above it.
  static let systolicsTried = 3

  /// When no row read fits `kind`, the rows read again told each of the kind's formats
  /// (``WindowChoice/rereads(_:kind:)``; the engines are told the digit count, the point is
  /// placed here), as surveys: the surest re-read that fits, completed, and its row. Nil when
  /// none fits.
  private func readInFormat(
    _ candidates: [WindowChoice.Candidate], crops: [Image], request: ReadRequest, context: Context, kind: MeterKind
  ) async throws(PipelineError) -> (row: Int, result: ReadResult)? {
    let plan = WindowChoice.rereads(candidates, kind: kind)
    guard !plan.isEmpty else { return nil }
    let jobs = plan.map { reread in
      var told = context
      told.digits = UInt32(reread.format.digits)
      return (crops[reread.row], told)
    }
    let results = try await fanOutEach(jobs, request: request, survey: true)
    let values = results.enumerated().map { index, result in
      (value: plan[index].format.apply(to: result.value), confidence: result.confidence)
    }
    guard let best = WindowChoice.chooseReread(values, kind: kind) else { return nil }
    let (crop, told) = jobs[best]
    var result = await completed(results[best], crop: crop, request: request, context: told)
    result.value = plan[best].format.apply(to: result.value)
    return (plan[best].row, result)
  }

  /// Each crop read by every engine at once (by the voting ones for a `survey`), all crops at
  /// once, with its context; in order.
  private func fanOutEach(_ jobs: [(crop: Image, context: Context)], request: ReadRequest, survey: Bool = false)
    async throws(PipelineError) -> [ReadResult]
  {
    let readings = await Self.inOrder(jobs.count) { index in
      await self.fanOutResult(jobs[index].crop, request: request, context: jobs[index].context, survey: survey)
    }
    var results: [ReadResult] = []
    for reading in readings {
      results.append(try reading.get())
    }
    return results
  }

  /// The digit window of a meter registered without one: the row ``readFoundRows`` takes in its
  /// reference photo for its kind (a blood-pressure monitor's lines together). Nil when none is
  /// found (the meter is then read whole), and when the row taken was found in the reference
  /// turned upright: a window carried into later photos through the homography would hold its
  /// digits sideways, while a photo read whole is turned upright first.
  func proposeWindow(for meter: Meter, reference: Image) async -> Rect? {
    let context = Context(meter: nil, digits: UInt32(meter.digits), decimals: UInt32(meter.decimals))
    let request = ReadRequest(image: reference)
    guard let found = try? await searchRows(in: reference, request: request, context: context, kind: meter.kind),
      found.quarterTurns == 0
    else { return nil }
    return found.result.windows.first?.box
  }
}
