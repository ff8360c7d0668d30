import Foundation

/// One labelled image of a folder whose truths are in `labels.csv`: a header line, then
/// `file,text` and optionally `accept`, per digit the digits a reader may rightly give there,
/// `|`-separated (`0|7|34|1`: the third wheel is caught between 3 and 4, and both count), and
/// optionally `points`: `unlabelled` where the truth cannot say where a decimal point belongs. The
/// project's generators Tools/make-digits.py and Tools/make-validation-sets.py write such folders.
public struct LabelledImage: Sendable, Equatable {
  /// The image's path.
  public var path: String
  /// The true value.
  public var text: String
  /// Per digit of `text`, the characters that count as right.
  public var accepted: [String]
  /// Whether `text` says where the decimal points are. A strip composed of real photos shows each
  /// device's own comma wherever its photo lands, so its truth has digits only.
  public var pointsLabelled = true

  public init(path: String, text: String, accepted: [String], pointsLabelled: Bool = true) {
    self.path = path
    self.text = text
    self.accepted = accepted
    self.pointsLabelled = pointsLabelled
  }

  /// `text` judged by a labels.csv line's `accept` (per digit of `text`, `|`-separated; empty:
  /// each digit as written) and `points` (`unlabelled`, `labelled` or empty). Throws, naming the
  /// field, when they do not fit `text`; the caller adds the file and line.
  public init(path: String, text: String, accept: String, points: String) throws(LabelledSet.Invalid) {
    let accepted = accept.isEmpty ? text.map { String($0) } : accept.split(separator: "|").map(String.init)
    guard accepted.count == text.count else {
      throw LabelledSet.Invalid(description: "accept has \(accepted.count) digits, text \(text.count)")
    }
    guard ["", "labelled", "unlabelled"].contains(points) else {
      throw LabelledSet.Invalid(description: "points is '\(points)'; write labelled, unlabelled or nothing")
    }
    self.init(path: path, text: text, accepted: accepted, pointsLabelled: points != "unlabelled")
  }

  /// `answer` as it is judged against the truth: without its decimal points where the truth has
  /// none to judge them by.
  public func judged(_ answer: String) -> String {
    pointsLabelled ? answer : answer.filter { $0 != "." }
  }

  /// Whether `answer` names the wheels caught turning with the last on one side of the reading
  /// line (each its upper digit over a last wheel at 0, its lower over one at 9); nil when the
  /// truth has no wheel turning with its last (the last accepts 9 and 0, and the one before it two
  /// digits) or `answer` is not of its length. ``isRight(_:)`` accepts either digit of each
  /// turning wheel on its own, so a reading off by a power of ten can pass it; this tells those.
  public func turnsTogether(_ answer: String) -> Bool? {
    let answer = Array(judged(answer).filter(\.isNumber))
    guard answer.count == accepted.count, let last = accepted.last, last.contains("9"), last.contains("0"),
      accepted.count >= 2, accepted[accepted.count - 2].count == 2
    else { return nil }
    let upper = answer[answer.count - 1] == "0"
    var index = accepted.count - 2
    while index >= 0, accepted[index].count == 2 {
      let pair = Array(accepted[index])
      if answer[index] != (upper ? pair[1] : pair[0]) { return false }
      guard pair[0] == "9" else { break }
      index -= 1
    }
    return true
  }

  /// Whether `answer`, ``judged(_:)``, gives every digit of the truth, each one it accepts there.
  public func isRight(_ answer: String) -> Bool {
    let answer = judged(answer)
    return answer.count == accepted.count && zip(answer, accepted).allSatisfy { $1.contains($0) }
  }
}

public enum LabelledSet {
  public struct Invalid: Error, CustomStringConvertible {
    public var description: String

    public init(description: String) {
      self.description = description
    }
  }

  /// The images listed in `directory`/labels.csv, in file order.
  public static func load(_ directory: String) throws -> [LabelledImage] {
    let base = URL(fileURLWithPath: directory)
    let file = base.appendingPathComponent("labels.csv")
    let text: String
    do {
      text = try String(contentsOf: file, encoding: .utf8)
    } catch {
      throw Invalid(description: "\(file.path) cannot be read: \(error.localizedDescription)")
    }
    let lines = text.split(whereSeparator: \.isNewline)
    guard let header = lines.first, header.split(separator: ",").prefix(2) == ["file", "text"] else {
      throw Invalid(description: "\(file.path) must start with the header file,text[,accept[,points]]")
    }
    return try lines.dropFirst().enumerated().map { index, line in
      let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      guard fields.count >= 2, !fields[0].isEmpty, !fields[1].isEmpty else {
        throw Invalid(description: "\(file.path) line \(index + 2): expected file,text")
      }
      do {
        return try LabelledImage(
          path: base.appendingPathComponent(fields[0]).path, text: fields[1],
          accept: fields.count > 2 ? fields[2] : "", points: fields.count > 3 ? fields[3] : "")
      } catch {
        throw Invalid(description: "\(file.path) line \(index + 2): \(error)")
      }
    }
  }
}
