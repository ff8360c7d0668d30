import Foundation
import PhotometerClient
import PhotometerProtocol
import TestSupport
import Testing

/// Whether this process may mount a tmpfs.
private let tmpfsMountable: Bool = {
  let probe = Scratch.folder.appendingPathComponent("mount-probe").path
  try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)
  guard DiskFaultTests.run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe]) else { return false }
  return DiskFaultTests.run("/bin/umount", [probe])
}()

/// The database on a file system that fills up, then turns read-only: writes fail with a clear
/// error, nothing is half-written, and what was acknowledged stays readable.
///
/// Needs to mount a tmpfs (root on Linux, as in CI); skipped where it cannot.
@Suite(.enabled(if: tmpfsMountable, "mounting a tmpfs needs root"))
struct DiskFaultTests {
  @discardableResult
  static func run(_ program: String, _ arguments: [String]) -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
  }

  @Test func aFullDiskThenAReadOnlyOneRefuseWritesAndKeepWhatWasStored() async throws {
    // In the scratch folder, which goes when the tests end: the empty mount points stayed behind.
    let mountPoint = Scratch.folder.appendingPathComponent("full-\(UUID())").path
    try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
    try #require(Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=3m", "tmpfs", mountPoint]))
    defer { Self.run("/bin/umount", ["-l", mountPoint]) }

    let plugins = try writePluginsFile(#"{"plugins": []}"#)
    let host = try await HostClient.launch(
      executable: Products.executable("photometer-host"),
      arguments: ["--db", "\(mountPoint)/photometer.sqlite", "--plugins", plugins, "--log-level", "critical"])
    _ = try await host.send(
      .addMeter(AddMeterRequest(meter: Meter(name: "Gas", kind: .gas), references: [Image(data: TestImages.png(1))])))
    // Readings with a 200 KiB crop each, until the disk is full.
    var acknowledged: [String] = []
    var failure: ErrorReply?
    for index in 1...100 {
      var request = AddReadingRequest(meter: "Gas", value: "\(index)", takenAt: Int64(index))
      request.crop = TestImages.png(index, width: 256, height: 267)  // stored uncompressed: 200 KiB
      do {
        _ = try await host.send(.addReading(request))
        acknowledged.append("\(index)")
      } catch let error as ErrorReply {
        failure = error
        break
      }
    }
    #expect(failure?.code == .storeFailed)
    #expect(failure?.message.contains("the disk is full") == true, "\(String(describing: failure))")
    #expect(acknowledged.count >= 5)
    // Nothing half-written: exactly the acknowledged readings, each whole.
    let stored = try await host.send(.listReadings(ListReadingsRequest(meter: "Gas", withCrops: true)))
    #expect(stored.map(\.value) == acknowledged)
    #expect(stored.allSatisfy { $0.crop == TestImages.png(Int($0.value)!, width: 256, height: 267) })

    // The same file system, now read-only (remounted once the host has let go of the file).
    await host.close()
    try #require(Self.run("/bin/mount", ["-o", "remount,ro", mountPoint]))
    let photometer = Products.executable("photometer")
    let options = ["--db", "\(mountPoint)/photometer.sqlite", "--plugins", plugins]
    let refused = try await runCommand(photometer, ["reading", "add", "Gas", "1000"] + options)
    #expect(refused.status != 0)
    #expect(refused.standardError.contains("the database was opened for reading only"), "\(refused.standardError)")
    // It can still be read.
    let listed = try await runCommand(photometer, ["readings", "Gas", "--csv"] + options)
    #expect(listed.status == 0, "\(listed.standardError)")
    #expect(listed.lines.dropFirst().map { $0.split(separator: ",")[3] } == acknowledged.map { Substring($0) })
  }
}
