import PhotometerProtocol
import PhotometerStore

/// The value of a store call, its error as the reply to the client: store errors become replies
/// here, once.
func stored<Value>(_ body: () async throws(StoreError) -> Value) async throws(ErrorReply) -> Value {
  do {
    return try await body()
  } catch {
    throw ErrorReply(error)
  }
}
