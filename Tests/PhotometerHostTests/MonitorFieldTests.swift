import PhotometerProtocol
import PhotometerStore
import PhotometerVision
import PhotometerVoting
import TestSupport
import Testing

@testable import PhotometerHost

/// A blood-pressure monitor's display cut into its lines, each line read on its own.
@Suite struct MonitorFieldTests {
  /// The lines of a display found in a whole photo go to the engines as found rows, as every
  /// other row of a whole photo does: they hold the display's labels and frame (R208). A display
  /// given as a window does not.
  @Test func linesOfAFoundDisplayAreSentAsFoundRows() async throws {
    let plugins = makePluginSet([testPlugin("reader", roles: [.read], options: ["text": "8{found}"])])
    await plugins.startAll()
    let pipeline = ReadPipeline(plugins: plugins, store: try MeterStore(path: temporaryDatabasePath()))
    let display = try VisionImage(decoding: TestImages.png(3, width: 60, height: 90))
    let context = ReadPipeline.Context(digits: 0, decimals: 0)
    var request = ReadRequest(image: Image(data: []))
    request.foundRow = true
    let found = try await pipeline.readFields(
      display, ranges: Plausibility.bloodPressureFields, request: request, context: context)
    request.foundRow = false
    let given = try await pipeline.readFields(
      display, ranges: Plausibility.bloodPressureFields, request: request, context: context)
    await plugins.stopAll()
    #expect(found.value == "81/81/81")
    #expect(given.value == "80/80/80")
  }
}
