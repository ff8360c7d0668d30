import DigitReader
import PhotometerProtocol
import PhotometerVision
import PhotometerVoting

extension ReadPipeline {
  /// The row finder's network, loaded at the first whole photo (nil when it cannot be: the
  /// connected-component finder then works alone).
  static let rowFinder: RowFinder? = try? RowFinder.bundled()

  /// The rows of `photo`, at most `limit`, from the shipped finders (`RowFinder.Finders.shipped`).
  static func digitRows(in photo: VisionImage, limit: Int) -> [VisionImage.DigitRow] {
    guard let rowFinder else { return (try? photo.digitRows(limit: limit)) ?? [] }
    return (try? rowFinder.rows(in: photo, limit: limit, finders: .shipped)) ?? []
  }

  /// The rows of digits found in a whole photo (`VisionImage.digitRows`), each read by every
  /// voting engine at once as a survey (``ReadRequest/survey``), and the reading of the one
  /// ``WindowChoice`` takes for `kind`, completed (``completed(_:crop:request:context:)``: read
  /// again by the engines whose survey reading is ``EngineReading/refinable`` and by the
  /// shadows), with every row in
  /// `windows` (the chosen first) and its crop,
  /// and the chosen row's image. Nil when the photo holds no row, or the photo is itself a digit
  /// window (``WindowChoice/isScene(width:height:rows:)``).
  func readFoundRows(in photo: VisionImage, request: ReadRequest, context: Context, kind: MeterKind?)
    async throws(PipelineError) -> (result: ReadResult, row: VisionImage)?
  {
    // A small photo is a window already: no rows are looked for.
    guard min(photo.width, photo.height) >= WindowChoice.smallestScene else { return nil }
    let rows = Self.digitRows(in: photo, limit: WindowChoice.rowsRead)
    guard WindowChoice.isScene(width: photo.width, height: photo.height, rows: rows.map(\.box)) else {
      return nil
    }
    var images: [VisionImage] = []
    var crops: [Image] = []
    for row in rows {
      do {
        images.append(try photo.rowCrop(row))
        crops.append(Image(data: try images[images.count - 1].encoded(), name: "crop.png"))
      } catch {
        throw .windowNotCut(error)
      }
    }
    var results = try await fanOutEach(crops.map { ($0, context) }, request: request, survey: true)
    // Judged as they will be shown: with the meter's decimals (a registered thermometer's 375 is 37.5).
    var candidates = zip(rows, results).map { row, result in
      WindowChoice.Candidate(
        box: row.box, score: row.score, digits: row.digits,
        value: ReadDecision.withDecimals(result.value, decimals: Int(context.decimals)), confidence: result.confidence)
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
      candidates[chosen].value = ReadDecision.withDecimals(results[chosen].value, decimals: Int(context.decimals))
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
    let readings = await withTaskGroup(of: (Int, Result<ReadResult, PipelineError>).self) { group in
      for (index, job) in jobs.enumerated() {
        group.addTask {
          (index, await self.fanOutResult(job.crop, request: request, context: job.context, survey: survey))
        }
      }
      var readings = [Result<ReadResult, PipelineError>?](repeating: nil, count: jobs.count)
      for await (index, reading) in group {
        readings[index] = reading
      }
      return readings.compactMap { $0 }
    }
    var results: [ReadResult] = []
    for reading in readings {
      results.append(try reading.get())
    }
    return results
  }

  /// The digit window of a meter registered without one: the row ``readFoundRows`` takes in its
  /// reference photo, for its kind. Nil when none is found (the meter is then read whole).
  func proposeWindow(for meter: Meter, reference: Image) async -> Rect? {
    guard meter.kind != .bloodPressure, let photo = try? Self.decode(reference) else { return nil }
    let context = Context(meter: nil, digits: UInt32(meter.digits), decimals: UInt32(meter.decimals))
    let request = ReadRequest(image: reference)
    let found = try? await readFoundRows(in: photo, request: request, context: context, kind: meter.kind)
    return found?.result.windows.first?.box
  }
}
