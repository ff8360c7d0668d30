import Foundation

extension ChildProcess {
  /// The folder of this process's own executable, where its sibling programs are installed.
  public static var executableFolder: String {
    let path =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    return URL(fileURLWithPath: path).deletingLastPathComponent().path
  }
}
