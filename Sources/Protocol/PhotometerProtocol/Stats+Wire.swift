import CPhotometerProtocol

extension Message {
  /// The statistics, export and chart messages from their C form, or `nil` for any other body.
  static func reportMessage(_ envelope: Photometer__V1__Envelope) throws(WireError) -> Message? {
    switch envelope.body_case {
    case PHOTOMETER__V1__ENVELOPE__BODY_GET_STATS:
      let request = envelope.get_stats.pointee
      return .getStats(
        StatsRequest(
          meter: String(protobuf: request.meter), period: StatsPeriod(wireValue: request.by.rawValue),
          from: request.from_ms != 0 ? request.from_ms : nil, to: request.to_ms != 0 ? request.to_ms : nil,
          unit: String(protobuf: request.unit), timeZone: String(protobuf: request.time_zone)))
    case PHOTOMETER__V1__ENVELOPE__BODY_EXPORT_DATA:
      return .exportData
    case PHOTOMETER__V1__ENVELOPE__BODY_IMPORT_DATA:
      return .importData(csv: String(protobuf: envelope.import_data.pointee.csv))
    case PHOTOMETER__V1__ENVELOPE__BODY_RENDER_CHART:
      let request = envelope.render_chart.pointee
      let size = ChartSize(
        width: request.width > 0 ? Int(min(request.width, 10_000)) : 800,
        height: request.height > 0 ? Int(min(request.height, 10_000)) : 400)
      return .renderChart(
        StatsRequest(
          meter: String(protobuf: request.meter), period: StatsPeriod(wireValue: request.by.rawValue),
          from: request.from_ms != 0 ? request.from_ms : nil, to: request.to_ms != 0 ? request.to_ms : nil,
          unit: String(protobuf: request.unit), timeZone: String(protobuf: request.time_zone)),
        size: size, content: ChartContent(wireValue: request.content.rawValue))
    case PHOTOMETER__V1__ENVELOPE__BODY_STATS:
      let stats = envelope.stats.pointee
      return .stats(
        Stats(
          meter: String(protobuf: stats.meter), unit: String(protobuf: stats.unit), counting: stats.counting != 0,
          rows: try repeated(stats.n_rows, stats.rows) { row throws(WireError) in
            StatsRow(
              start: row.start_ms, end: row.end_ms, label: String(protobuf: row.label), count: Int(row.count),
              consumption: row.consumption, min: row.min, max: row.max, mean: row.mean)
          }))
    case PHOTOMETER__V1__ENVELOPE__BODY_EXPORTED_DATA:
      let data = envelope.exported_data.pointee
      return .exportedData(
        csv: String(protobuf: data.csv), meters: Int(data.meters), readings: Int(clamping: data.readings))
    case PHOTOMETER__V1__ENVELOPE__BODY_IMPORTED_DATA:
      let data = envelope.imported_data.pointee
      return .importedData(meters: Int(data.meters), readings: Int(clamping: data.readings))
    case PHOTOMETER__V1__ENVELOPE__BODY_CHART:
      return .chart(svg: String(protobuf: envelope.chart.pointee.svg))
    default:
      return nil
    }
  }

  /// Fills in `envelope` for the statistics, export and chart messages; false for any other.
  func fillReportMessage(_ envelope: inout Photometer__V1__Envelope, arena: Arena) -> Bool {
    switch self {
    case .getStats(let request):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_GET_STATS
      envelope.get_stats = arena.message(photometer__v1__get_stats__init) {
        $0.meter = arena.string(request.meter)
        $0.by = Photometer__V1__StatsPeriod(rawValue: request.period.wireValue)
        $0.from_ms = request.from ?? 0
        $0.to_ms = request.to ?? 0
        $0.unit = arena.string(request.unit)
        $0.time_zone = arena.string(request.timeZone)
      }
    case .exportData:
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_EXPORT_DATA
      envelope.export_data = arena.message(photometer__v1__export_data__init) { _ in }
    case .importData(let csv):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_IMPORT_DATA
      envelope.import_data = arena.message(photometer__v1__import_data__init) { $0.csv = arena.string(csv) }
    case .renderChart(let request, let size, let content):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_RENDER_CHART
      envelope.render_chart = arena.message(photometer__v1__render_chart__init) {
        $0.content = Photometer__V1__ChartContent(rawValue: content.wireValue)
        $0.by = Photometer__V1__StatsPeriod(rawValue: request.period.wireValue)
        $0.meter = arena.string(request.meter)
        $0.from_ms = request.from ?? 0
        $0.to_ms = request.to ?? 0
        $0.unit = arena.string(request.unit)
        $0.time_zone = arena.string(request.timeZone)
        $0.width = UInt32(clamping: size.width)
        $0.height = UInt32(clamping: size.height)
      }
    case .stats(let stats):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_STATS
      envelope.stats = arena.message(photometer__v1__stats__init) {
        $0.meter = arena.string(stats.meter)
        $0.unit = arena.string(stats.unit)
        $0.counting = stats.counting ? 1 : 0
        ($0.n_rows, $0.rows) = arena.array(stats.rows) { row in
          arena.message(photometer__v1__stats_row__init) {
            $0.start_ms = row.start
            $0.end_ms = row.end
            $0.label = arena.string(row.label)
            $0.count = UInt32(clamping: row.count)
            $0.consumption = row.consumption
            $0.min = row.min
            $0.max = row.max
            $0.mean = row.mean
          }
        }
      }
    case .exportedData(let csv, let meters, let readings):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_EXPORTED_DATA
      envelope.exported_data = arena.message(photometer__v1__exported_data__init) {
        $0.csv = arena.string(csv)
        $0.meters = UInt32(clamping: meters)
        $0.readings = UInt64(clamping: readings)
      }
    case .importedData(let meters, let readings):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_IMPORTED_DATA
      envelope.imported_data = arena.message(photometer__v1__imported_data__init) {
        $0.meters = UInt32(clamping: meters)
        $0.readings = UInt64(clamping: readings)
      }
    case .chart(let svg):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_CHART
      envelope.chart = arena.message(photometer__v1__chart__init) { $0.svg = arena.string(svg) }
    default:
      return false
    }
    return true
  }
}
