import PhotometerProtocol
import Testing

/// Which conversation each kind of wire message belongs to, as the receiving edges take them.
@Suite struct ConversationTests {
  /// Replies: neither a client nor the host sends one as a request.
  static let replies: Set<String> = [
    "Error", "Pong", "ShutdownComplete", "ReadResult", "IdentifyResult", "PluginList", "MeterPreview",
    "EngineReading", "PluginCandidates", "MeterInfo", "MeterList", "MeterRemoved", "ReadingInfo", "ReadingList",
    "ReadingDeleted", "Stats", "ExportedData", "ImportedData", "Chart",
  ]
  /// What the host asks a plugin.
  static let pluginRequests: Set<String> = ["Hello", "Ping", "Cancel", "Shutdown", "ReadRequest", "IdentifyRequest"]
  static let storeQueries: Set<String> = [
    "GetMeter", "ListMeters", "GetReading", "ListReadings", "GetStats", "ExportData",
  ]
  static let storeChanges: Set<String> = [
    "AddMeter", "EditMeter", "RemoveMeter", "AddReading", "ConfirmReading", "DeleteReading", "ImportData",
  ]

  @Test(arguments: EnvelopeWireTests.messages)
  func aClientSendsEveryRequestAndNoReply(message: Message) {
    #expect((ClientMessage(message) == nil) == Self.replies.contains(message.kind), "\(message.kind)")
  }

  @Test(arguments: EnvelopeWireTests.messages)
  func thePluginTakesOnlyWhatTheHostAsksIt(message: Message) {
    #expect((HostMessage(message) != nil) == Self.pluginRequests.contains(message.kind), "\(message.kind)")
  }

  @Test(arguments: EnvelopeWireTests.messages)
  func storeRequestsAreQueriesOrChanges(message: Message) {
    let isQuery = if case .work(.query) = ClientMessage(message) { true } else { false }
    let isChange = if case .work(.change) = ClientMessage(message) { true } else { false }
    #expect(isQuery == Self.storeQueries.contains(message.kind), "\(message.kind)")
    #expect(isChange == Self.storeChanges.contains(message.kind), "\(message.kind)")
    #expect((StoreQuery(message) != nil) == isQuery)
    #expect((StoreChange(message) != nil) == isChange)
  }

  @Test func aMessageKeepsItsContentAcrossTheEdge() {
    let request = ReadRequest(image: Image(data: [1, 2, 3], name: "a.png"), digits: 5)
    #expect(ClientMessage(.read(request)) == .work(.read(request)))
    #expect(HostMessage(.read(request)) == .read(request))
    #expect(
      ClientMessage(.removeMeter(name: "gas", withReadings: true))
        == .work(.change(.removeMeter(name: "gas", withReadings: true))))
    #expect(ClientMessage(.getReading(id: 7, withCrop: true)) == .work(.query(.getReading(id: 7, withCrop: true))))
    #expect(ClientMessage(.cancel(requestID: 9)) == .cancel(requestID: 9))
  }
}
