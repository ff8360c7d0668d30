import ArgumentParser
import Foundation
import PhotometerProtocol

/// How a command fails: a one-line reason on standard error and the exit status that says whose
/// fault it was.
enum CommandFailure: Error, CustomStringConvertible {
  /// The user's input is wrong (a file, an argument, the configuration): exit status 1.
  case badInput(String)
  /// Something broke inside Photometer or a plugin: exit status 2.
  case internalFailure(String)

  var description: String {
    switch self {
    case .badInput(let reason), .internalFailure(let reason): reason
    }
  }

  var exitCode: ExitCode {
    switch self {
    case .badInput: ExitCode(1)
    case .internalFailure: ExitCode(2)
    }
  }

  /// The failure an error from the host or the connection stands for.
  init(_ error: any Error) {
    switch error {
    case let failure as CommandFailure:
      self = failure
    case let reply as ErrorReply where reply.code.isBadInput:
      self = .badInput(reply.message)
    default:
      self = .internalFailure("\(error)")
    }
  }

  /// Prints the reason and ends the process with the failure's status.
  func exit() -> ExitCode {
    FileHandle.standardError.write(Data("photometer: \(description)\n".utf8))
    return exitCode
  }
}

extension ErrorCode {
  /// Whether an error with this code is the fault of the request rather than of Photometer.
  var isBadInput: Bool {
    [.invalidRequest, .badImage, .notFound, .noPlugins, .frameTooLarge, .unknownField].contains(self)
  }
}

/// Runs a command's body, turning failures into their reason and exit status.
func reportingFailures(_ body: () async throws -> Void) async throws {
  do {
    try await body()
  } catch let code as ExitCode {
    throw code
  } catch {
    throw CommandFailure(error).exit()
  }
}
