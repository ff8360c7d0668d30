import ArgumentParser
import ChildProcess
import Foundation
import PhotometerClient
import PhotometerProtocol
import PhotometerStore

/// The options every command takes.
struct GlobalOptions: ParsableArguments {
  @Option(help: "The SQLite database (default: $XDG_DATA_HOME/photometer/photometer.sqlite).")
  var db: String?

  @Option(
    help: """
      The plugin configuration (default: $XDG_CONFIG_HOME/photometer/plugins.json when present, \
      else the repository's plugins.json).
      """)
  var plugins: String?

  @Option(help: "The photometer-host program (default: the one beside this program).")
  var host: String?

  @Option(help: "The host's log level on standard error: trace, debug, info, notice, warning, error.")
  var logLevel: String = "warning"

  @Option(help: "Have the host append every request and reply to this file (see `photometer replay`).")
  var record: String?

  /// Starts the host and shakes hands. A host that refuses its database or plugin configuration
  /// ends the command with status 1 and its reason; other failures with status 2. With
  /// `readOnly`, the host opens the database for reading only (it never writes to it).
  func connect(readOnly: Bool = false) async throws -> HostClient {
    // A command starts only the plugins its requests need: one that only asks the store, none.
    var arguments = ["--log-level", logLevel, "--start-plugins", "on-demand"]
    if readOnly { arguments.append("--read-only") }
    if let db { arguments += ["--db", db] }
    if let plugins { arguments += ["--plugins", absolute(plugins)] }
    if let record { arguments += ["--record", absolute(record)] }
    let executable = host.map(absolute) ?? "\(ChildProcess.executableFolder)/photometer-host"
    do {
      return try await HostClient.launch(executable: executable, arguments: arguments) { line in
        FileHandle.standardError.write(Data("\(line)\n".utf8))
      }
    } catch HostClient.Failure.refusedToStart(let reason) {
      // The database or plugins.json given (or the default) is unusable: the user's to fix.
      throw CommandFailure.badInput(reason)
    } catch {
      throw CommandFailure.internalFailure("\(error)")
    }
  }

  /// Starts the host, sends one request, waits for its answer, and closes.
  /// A request that only reads the store is answered in this process instead, from the database
  /// opened for reading only (no host, no plugins: a listing takes about as long as `--version`),
  /// unless the command is recorded or names another host.
  func request<Response>(_ request: HostRequest<Response>) async throws -> Response {
    if let query = StoreQuery(request.message), record == nil, host == nil {
      return try await answer(request, query)
    }
    let client = try await connect(readOnly: request.message.onlyReadsTheStore)
    do {
      let value = try await client.send(request)
      await client.close()
      return value
    } catch {
      await client.close()
      throw error
    }
  }

  /// Answers a request that only reads the store from the database, as the host would: a
  /// database that cannot be opened ends the command with status 1 and its reason, a store
  /// failure as the host's ``ErrorReply`` would.
  private func answer<Response>(_ request: HostRequest<Response>, _ query: StoreQuery) async throws -> Response {
    let store: MeterStore
    do {
      store = try MeterStore(path: db ?? MeterStore.defaultPath, access: .readOnly)
    } catch {
      throw CommandFailure.badInput("\(error)")
    }
    let reply: Message
    do {
      reply = try await store.answer(query)
    } catch {
      throw ErrorReply(error)
    }
    guard let value = request.answer(in: reply) else {
      throw CommandFailure.internalFailure("the store answers \(request.message.kind) with \(reply.kind)")
    }
    return value
  }
}

func absolute(_ path: String) -> String {
  URL(fileURLWithPath: path).standardized.path
}

extension Message {
  /// Whether the host answers this from the store without changing it.
  fileprivate var onlyReadsTheStore: Bool {
    if case .renderChart = self { true } else { StoreQuery(self) != nil }
  }
}
