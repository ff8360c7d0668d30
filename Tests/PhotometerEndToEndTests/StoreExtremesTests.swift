import ChildProcess
import Foundation
import PhotometerProtocol
import TestSupport
import Testing

/// Every store request, its numbers at the ends of their wire types, sent to a running host: each
/// is answered (a reply or an error), the host keeps serving, and it exits cleanly.
@Suite struct StoreExtremesTests {
  static let times: [Int64] = [.min, .min + 1, -1, 0, 1, .max - 1, .max]
  static let numbers: [Double] = [-.infinity, -.greatestFiniteMagnitude, -0.0, .leastNonzeroMagnitude, .nan, .infinity]

  /// The requests: a meter to aim at, then every store message with extreme times, ids,
  /// limits, sizes and settings.
  static var requests: [Message] {
    let photo = Image(data: TestImages.png(1), name: "gas.png")
    var requests: [Message] = [
      .addMeter(AddMeterRequest(meter: Meter(name: "Gas", kind: .gas, countsUp: true), references: [photo]))
    ]
    for time in times {
      requests.append(.addReading(AddReadingRequest(meter: "Gas", value: "1", takenAt: time)))
      requests.append(.listReadings(ListReadingsRequest(meter: "Gas", from: time, to: .max, limit: Int(UInt32.max))))
      requests.append(.listReadings(ListReadingsRequest(meter: "Gas", from: .min, to: time, limit: 1)))
      for period in [StatsPeriod.day, .week, .month] {
        requests.append(.getStats(StatsRequest(meter: "Gas", period: period, from: time, to: .max, timeZone: "UTC")))
        requests.append(.getStats(StatsRequest(meter: "Gas", period: period, from: .min, to: time, timeZone: "UTC")))
      }
      requests.append(
        .renderChart(
          StatsRequest(meter: "Gas", from: .min, to: time, timeZone: "Pacific/Kiritimati"),
          size: ChartSize(width: Int(UInt32.max), height: 1)))
      requests.append(.confirmReading(id: time, value: "2"))
      requests.append(.deleteReading(id: time))
    }
    for number in numbers {
      requests.append(
        .addReading(AddReadingRequest(meter: "Gas", value: "\(number)", takenAt: 1, confidence: number)))
      requests.append(
        .addMeter(
          AddMeterRequest(
            meter: Meter(
              name: "M\(number)", kind: .water, roi: Rect(x: .max, y: .min, width: .max, height: .max),
              digits: .max, decimals: .max, maxRatePerHour: number, range: number.isNaN ? nil : number...number),
            references: [photo])))
    }
    for value in ["9223372036854775807", "-9223372036854775808", "1e309", "99999999999999999999999"] {
      requests.append(.addReading(AddReadingRequest(meter: "Gas", value: value, takenAt: 2)))
      requests.append(
        .importData(
          csv: "record,meter,value,taken_at\nreading,Gas,1,\(value)\n"))
    }
    requests.append(.exportData)
    return requests
  }

  @Test func everyStoreRequestAtItsExtremesIsAnsweredAndTheHostLives() async throws {
    let plugins = try writePluginsFile(#"{"plugins": []}"#)
    let host = try await ChildProcess.spawn(
      executable: Products.executable("photometer-host"),
      arguments: ["--db", temporaryDatabasePath(), "--plugins", plugins, "--log-level", "critical"]
    ) { _, _ in }
    let peer = RawPeer(input: host.standardOutput, output: host.standardInput)
    peer.send(Envelope(requestID: 1, message: .hello(Hello(name: "extremes", softwareVersion: "1"))))
    _ = await peer.replies(to: 1, count: 1)
    var answered: [String: Int] = [:]
    for (index, request) in Self.requests.enumerated() {
      let id = UInt64(index + 10)
      peer.send(Envelope(requestID: id, message: request))
      let replies = await peer.replies(to: id, count: 1)
      #expect(replies.count == 1, "no answer to \(request.kind) #\(index)")
      answered[replies.first?.kind ?? "nothing", default: 0] += 1
    }
    // The meter was made, and the in-range requests were served, not all refused.
    #expect(answered["MeterInfo"] ?? 0 >= 1, "\(answered)")
    #expect(answered["Stats"] ?? 0 >= 1 && answered["ReadingList"] ?? 0 >= 1, "\(answered)")
    peer.send(Envelope(requestID: 5, message: .ping(payload: [])))
    #expect(await peer.replies(to: 5, count: 1).count == 1)
    #expect(peer.undecodableCount == 0)
    peer.closeOutput()
    #expect(await host.waitForExit(timeout: .seconds(20)) == .exited(code: 0))
  }
}
