import PhotometerCharts
import PhotometerImages
import PhotometerProtocol
import PhotometerStore
import PhotometerVision

extension HostServer {
  /// The answer to a request that changes the meter store.
  func answer(_ change: StoreChange) async throws(ErrorReply) -> Message {
    switch change {
    case .addMeter(let request): try checkReferencesDecode(request.references)
    case .editMeter(let request): try checkReferencesDecode(request.addReferences)
    default: break
    }
    return try await answered { () throws(StoreError) in try await apply(change) }
  }

  private func apply(_ change: StoreChange) async throws(StoreError) -> Message {
    switch change {
    case .addMeter(var request):
      // A meter registered without a digit window gets the one found in its reference photo, but
      // for a meter with dials: there the finders take the dials' numbers for the counter
      // (docs/recognizers.md, *Water meters with dials, found whole*).
      if request.meter.roi == nil, !request.meter.dials.isEmpty {
        throw .invalid(
          "the meter '\(request.meter.name)' has pointer dials but no digit window: give its wheels' window "
            + "(--roi X,Y,W,H), since in a whole photo of a meter with dials the dials' numbers are taken for "
            + "its counter")
      }
      if request.meter.roi == nil, let reference = request.references.first {
        request.meter.roi = await reading.proposeWindow(for: request.meter, reference: reference)
      }
      return .meterInfo(try await store.addMeter(request.meter, references: request.references))
    case .editMeter(let request):
      return .meterInfo(try await store.editMeter(request))
    case .removeMeter(let name, let withReadings):
      return .meterRemoved(
        name: name, readingsRemoved: try await store.removeMeter(named: name, withReadings: withReadings))
    case .addReading(let request):
      return .readingInfo(try await store.addReading(request))
    case .confirmReading(let id, let value):
      return .readingInfo(try await store.confirmReading(id: id, value: value.isEmpty ? nil : value))
    case .deleteReading(let id):
      try await store.deleteReading(id: id)
      return .readingDeleted(id: id)
    case .importData(let csv):
      let imported = try await store.importCSV(csv)
      return .importedData(meters: imported.meters, readings: imported.readings)
    }
  }

  /// A chart of the readings the request names: a counting meter's consumption per the
  /// request's period as columns (unless the readings are asked for), any other meter's readings
  /// as a line.
  func chart(_ request: StatsRequest, size: ChartSize, content: ChartContent) async throws(StoreError) -> String {
    let (meter, unit, points) = try await store.series(request.meter, unit: request.unit)
    switch (content, meter.countsUp) {
    case (.consumption, false):
      throw .invalid(
        "meter '\(meter.name)' does not count up: it has no consumption to chart; chart its readings instead")
    case (.consumption, true), (.automatic, true):
      let stats = try await store.stats(request)
      return ColumnChart(
        title: "\(meter.name): consumption per \(request.period.rawValue)", unit: unit,
        columns: stats.rows.map { ColumnChart.Column(label: $0.label, value: $0.consumption) }, width: size.width,
        height: size.height
      ).svg
    case (.readings, _), (.automatic, false):
      break
    }
    let zone = try MeterStore.calendar(request.timeZone).timeZone
    let shown = points.filter { point in
      MeterStore.readingTimes.contains(point.time) && request.from.map { point.time >= $0 } ?? true
        && request.to.map { point.time <= $0 } ?? true
    }
    return LineChart(
      title: meter.name, unit: unit, points: shown.map { LineChart.Point(time: $0.time, value: $0.value) },
      timeZone: zone, width: size.width, height: size.height
    ).svg
  }
}

extension HostServer {
  /// Decodes each new reference photo (after its header is checked against the limits): a photo
  /// whose header is sound and whose pixels are not (a PNG with a bad CRC, a cut-short file)
  /// would be stored and then fail every identify.
  func checkReferencesDecode(_ references: [Image]) throws(ErrorReply) {
    for reference in references {
      let name = reference.name.isEmpty ? "a reference photo" : "the reference photo \(reference.name)"
      do {
        _ = try ImageInfo.inspect(reference.data, limits: imageLimits)
        _ = try VisionImage(decoding: reference.data)
      } catch {
        throw ErrorReply(.badImage, "\(name) does not decode: \(error)")
      }
    }
  }
}
