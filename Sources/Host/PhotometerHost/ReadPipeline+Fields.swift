import PhotometerProtocol
import PhotometerVision
import PhotometerVoting

extension ReadPipeline {
  /// Reads a display with several values on lines of their own (a blood-pressure monitor:
  /// systolic, diastolic, pulse): the crop is cut into its text lines, each line is read by every
  /// engine and voted on its own, and the fields are joined with `/` ("120/80/70"), per engine as
  /// well. The confidence is the weakest field's; a field without a value leaves the whole
  /// without one.
  ///
  /// - Parameter ranges: each field's plausible values; a field read outside its range is read
  ///   again as 3 and as 2 digits (a display's blank leading place and faint ghost segments
  ///   mislead the cell count), and the likeliest answer in range is kept.
  func readFields(
    _ crop: VisionImage, ranges: [ClosedRange<Double>], request: ReadRequest, context: Context,
    lines choice: VisionImage.LineChoice = .heaviest
  ) async throws(PipelineError) -> ReadResult {
    Self.joined(try await readEachField(crop, ranges: ranges, request: request, context: context, lines: choice))
  }

  /// The fields ``readFields(_:ranges:request:context:)`` joins, each read on its own, in order;
  /// those from `first` on (the lines are cut as for all of them), and only until one is read
  /// with less confidence than `until` (that one last).
  func readEachField(
    _ crop: VisionImage, ranges: [ClosedRange<Double>], request: ReadRequest, context: Context, from first: Int = 0,
    until least: Double = 0, lines choice: VisionImage.LineChoice = .heaviest
  ) async throws(PipelineError) -> [ReadResult] {
    let count = ranges.count
    let lines: [Rect]
    do {
      lines = try crop.textLines(expected: count, keeping: choice)
    } catch {
      throw .displayLinesNotCut(error)
    }
    var fields: [ReadResult] = []
    for (line, range) in zip(lines, ranges).dropFirst(first) {
      if let last = fields.last, last.confidence < least { break }
      let lineCrop: VisionImage
      do {
        lineCrop = try crop.cropped(line)
      } catch {
        throw .displayLinesNotCut(error)
      }
      fields.append(
        try await readField(
          try Self.forEngines(lineCrop, name: "line.bmp"), range: range, request: request, context: context))
    }
    return fields
  }

  /// One field of a display: `image` read by every engine (unless `read` is its reading already)
  /// and, when the value is outside `range`, read again told 3 and 2 digits (a display's blank
  /// leading place and faint ghost segments mislead the cell count); the likeliest answer in range
  /// is kept. A line of a display found in a whole photo (`request` a ``ReadRequest/foundRow``)
  /// goes to the engines as a found row too: it holds the display's labels and frame (R208).
  func readField(
    _ image: Image, range: ClosedRange<Double>, request: ReadRequest, context: Context, read: ReadResult? = nil
  ) async throws(PipelineError) -> ReadResult {
    let sent = ReadRequest(
      image: image, meter: context.meter?.name ?? "", options: request.options, foundRow: request.foundRow,
      shadows: request.shadows)
    func inRange(_ result: ReadResult) -> Bool {
      Double(Plausibility.bloodPressureField(result.value, range: range)).map { range.contains($0) } ?? false
    }
    var field: ReadResult
    if let read {
      field = read
    } else {
      field = try await fannedOut { () throws(ErrorReply) in
        try await plugins.read(sent)
      }
    }
    guard !inRange(field) else { return ReadDecision.monitorField(field, range: range) }
    let digits = String(Int(range.upperBound)).count
    for count in [digits, digits - 1] where count > 0 {
      var told = sent
      told.digits = UInt32(count)
      let again = try await fannedOut { [told] () throws(ErrorReply) in
        try await plugins.read(told, expectedDigits: count)
      }
      if inRange(again) && (!inRange(field) || again.confidence > field.confidence) {
        field = again
      }
    }
    return ReadDecision.monitorField(field, range: range)
  }

  /// One result from the fields' results, in order.
  static func joined(_ fields: [ReadResult]) -> ReadResult {
    let complete = fields.allSatisfy { !$0.value.isEmpty }
    var engines: [EngineAnswer] = []
    for answer in fields.first?.engines ?? [] {
      let parts = fields.map { field in field.engines.first { $0.plugin == answer.plugin } }
      var joined = answer
      joined.milliseconds = parts.reduce(0) { $0 + ($1?.milliseconds ?? 0) }
      let readings = parts.compactMap { part -> EngineReading? in
        guard let part, case .success(let reading) = part.outcome else { return nil }
        return reading
      }
      if readings.count == parts.count {
        joined.outcome = .success(
          EngineReading(
            text: readings.map(\.text).joined(separator: "/"), confidence: readings.map(\.confidence).min() ?? 0,
            symbols: readings.flatMap(\.symbols)))
      } else if let failure = parts.lazy.compactMap({ part -> ErrorReply? in
        guard let part, case .failure(let error) = part.outcome else { return nil }
        return error
      }).first {
        joined.outcome = .failure(failure)
      }
      engines.append(joined)
    }
    return ReadResult(
      value: complete ? fields.map(\.value).joined(separator: "/") : "",
      confidence: complete ? fields.map(\.confidence).min() ?? 0 : 0, engines: engines,
      flags: ReadDecision.ordered(fields.flatMap(\.flags)), summary: "",
      digits: fields.flatMap(\.digits),
      unrepairedValue: fields.allSatisfy(\.unrepairedValue.isEmpty)
        ? "" : fields.map { $0.unrepairedValue.isEmpty ? $0.value : $0.unrepairedValue }.joined(separator: "/"))
  }
}
