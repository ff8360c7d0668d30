import Foundation
import PhotometerClient
import PhotometerProtocol

/// Runs `work` on every item, at most `width` at once, and hands each result to `emit` in the
/// items' order as soon as it and all before it are done. Shows a progress bar on standard error
/// when that is a terminal and there is more than one item.
func runInOrder<Item: Sendable, Output: Sendable>(
  _ items: [Item],
  width: Int = 8,
  work: @escaping @Sendable (Item) async -> Output,
  emit: (Output) -> Void
) async {
  let progress = ProgressBar(total: items.count)
  await withTaskGroup(of: (Int, Output).self) { group in
    var next = 0
    var done: [Int: Output] = [:]
    var emitted = 0
    func launch() {
      guard next < items.count else { return }
      let index = next
      let item = items[index]
      group.addTask { (index, await work(item)) }
      next += 1
    }
    for _ in 0..<width { launch() }
    for await (index, output) in group {
      done[index] = output
      progress.advance()
      while let ready = done.removeValue(forKey: emitted) {
        progress.clear()
        emit(ready)
        emitted += 1
      }
      launch()
    }
  }
  progress.clear()
}

/// A one-line progress bar on standard error, drawn only when standard error is a terminal.
final class ProgressBar {
  private let total: Int
  private var completed = 0
  private let enabled: Bool

  init(total: Int) {
    self.total = total
    self.enabled = total > 1 && isatty(2) == 1
  }

  func advance() {
    completed += 1
    guard enabled else { return }
    let width = 30
    let filled = width * completed / max(total, 1)
    let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
    write("\r[\(bar)] \(completed)/\(total)")
  }

  func clear() {
    guard enabled else { return }
    write("\r\u{1B}[K")
  }

  private func write(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
  }
}

/// What a batch command shows of one image's result.
protocol ImageResult: Sendable {
  /// The table's header, `IMAGE` first.
  static var header: [String] { get }
  /// The JSON members after `image`, for a result or (`nil`) a failure.
  static func json(_ result: Self?, ms: Double) -> [(String, JSONValue)]
  /// The table cells after the image; `failure` goes in the last column when set.
  static func row(_ result: Self?, ms: Double, failure: String?) -> [String]
}

/// One image's outcome in a batch command: a JSON line or a table row.
struct ImageLine<Result: ImageResult>: Sendable {
  var image: String
  var result: Result?
  var ms: Double
  var failure: CommandFailure?

  /// Runs `work` for `image`, timing it and catching its failure.
  static func measure(_ image: String, _ work: () async throws -> Result) async -> ImageLine {
    let clock = ContinuousClock()
    let start = clock.now
    do {
      let result = try await work()
      return ImageLine(image: image, result: result, ms: milliseconds(clock.now - start))
    } catch {
      return ImageLine(image: image, ms: milliseconds(clock.now - start), failure: CommandFailure(error))
    }
  }

  var json: JSONValue {
    .object(
      [("image", .string(image))] + Result.json(result, ms: ms)
        + (failure.map { [("error", .string($0.description))] } ?? []))
  }

  var row: [String] {
    [image] + Result.row(result, ms: ms, failure: failure?.description)
  }
}

/// Runs `work` on every image, prints the lines (JSON Lines or a table) in input order, closes the
/// client, and fails with the worst image failure, if any.
func runBatch<Result: ImageResult>(
  _ images: [String],
  json: Bool,
  client: HostClient,
  work: @escaping @Sendable (String) async throws -> Result
) async throws {
  var rows: [[String]] = []
  var worst: CommandFailure?
  await runInOrder(images) { image in
    await ImageLine.measure(image) { try await work(image) }
  } emit: { line in
    if let failure = line.failure, worst.map({ $0.exitCode.rawValue < failure.exitCode.rawValue }) ?? true {
      worst = failure
    }
    if json {
      print(line.json.rendered)
    } else {
      rows.append(line.row)
    }
  }
  await client.close()
  if !json {
    printTable(header: Result.header, rows: rows)
  }
  if let worst {
    throw worst
  }
}

/// Prints rows as columns padded to their widest cell.
func printTable(header: [String], rows: [[String]]) {
  let all = [header] + rows
  let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
  for row in all {
    let cells = row.enumerated().map { index, cell in
      index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
    }
    print(cells.joined(separator: "  "))
  }
}

/// Reads image files for a request, each named by its path.
func loadImages(_ paths: [String]) throws(CommandFailure) -> [Image] {
  try paths.map { (path) throws(CommandFailure) in Image(data: try loadImage(path), name: path) }
}

/// The path that stands for standard input (`curl ... | photometer read -`).
let standardInputPath = "-"

/// Reads an image file for a request; `-` reads standard input to its end (once: every `-`
/// of a command is that one image).
func loadImage(_ path: String) throws(CommandFailure) -> [UInt8] {
  guard path != standardInputPath else { return try standardInputImage.get() }
  // POSIX calls, so that the failure carries the system's reason (Foundation's errors on Linux
  // say only that "the file doesn't exist").
  let descriptor = open(path, O_RDONLY)
  guard descriptor >= 0 else { throw .badInput("cannot read image \(path): \(String(cString: strerror(errno)))") }
  defer { close(descriptor) }
  var bytes: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 1 << 16)
  while true {
    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    if count < 0 && errno == EINTR { continue }
    guard count >= 0 else { throw .badInput("cannot read image \(path): \(String(cString: strerror(errno)))") }
    guard count > 0 else { return bytes }
    bytes += buffer[..<count]
  }
}

/// Standard input, read when an image named `-` is first needed.
private let standardInputImage: Result<[UInt8], CommandFailure> = {
  let data = FileHandle.standardInput.readDataToEndOfFile()
  guard !data.isEmpty else { return .failure(.badInput("standard input (-) held no image: pipe a photo in")) }
  return .success([UInt8](data))
}()

/// The operating system's reason for a Foundation file error ("No such file or directory"),
/// not the error's dump.
func fileErrorReason(_ error: any Error) -> String {
  let error = error as NSError
  if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
    return String(cString: strerror(Int32(underlying.code)))
  }
  return error.localizedDescription
}

/// Writes `bytes` to the file at `path`; a failure names the file and the system's reason.
func writeFile(_ bytes: [UInt8], to path: String) throws(CommandFailure) {
  do {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
  } catch {
    throw .badInput("cannot write \(path): \(fileErrorReason(error))")
  }
}

/// Writes an image into `folder` as `stem.jpg` when its bytes are a JPEG, else `stem.png` (the
/// host's crops are one or the other), and returns the file's path.
@discardableResult
func writeImage(_ bytes: [UInt8], folder: String, stem: String) throws(CommandFailure) -> String {
  let file = URL(fileURLWithPath: folder).appendingPathComponent(
    stem + (bytes.starts(with: [0xFF, 0xD8]) ? ".jpg" : ".png"))
  try writeFile(bytes, to: file.path)
  return file.path
}

/// Creates `folder` (and its parents) for files a command writes, before any work is done; by
/// POSIX calls, so that a failure carries the system's reason.
func createOutputFolder(_ folder: String) throws(CommandFailure) {
  var path = folder.hasPrefix("/") ? "" : "."
  for component in folder.split(separator: "/") {
    path += "/\(component)"
    guard mkdir(path, 0o755) == 0 || errno == EEXIST else {
      throw .badInput("cannot create the folder \(folder): \(String(cString: strerror(errno)))")
    }
  }
  var status = stat()
  guard stat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
    throw .badInput("cannot create the folder \(folder): a file of that name is in the way")
  }
}

/// A duration in milliseconds to two decimals, as the CLI prints them.
func milliseconds(_ duration: Duration) -> Double {
  duration.milliseconds.rounded(toPlaces: 2)
}

extension Double {
  func rounded(toPlaces places: Int) -> Double {
    let scale = pow(10, Double(places))
    return (self * scale).rounded() / scale
  }
}
