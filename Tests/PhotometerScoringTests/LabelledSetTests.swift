import Foundation
import PhotometerScoring
import Testing

@Suite final class LabelledSetTests {
  let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("labels-\(UUID().uuidString)")

  deinit {
    try? FileManager.default.removeItem(at: scratch)
  }

  func folder(_ labels: String) throws -> String {
    let url = scratch.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    try Data(labels.utf8).write(to: url.appendingPathComponent("labels.csv"))
    return url.path
  }

  @Test func readsTruthsAndAcceptedDigits() throws {
    let directory = try folder("file,text,accept\na.png,0731,0|7|34|1\nb.png,42,\n")
    let images = try LabelledSet.load(directory)
    #expect(images.map(\.text) == ["0731", "42"])
    #expect(images[0].accepted == ["0", "7", "34", "1"])
    #expect(images[1].accepted == ["4", "2"])
    #expect(images[0].path == "\(directory)/a.png")
  }

  @Test func judgesDigitsOnlyWhereTheTruthLabelsNoPoints() throws {
    let directory = try folder("file,text,accept,points\na.png,05391,,unlabelled\nb.png,36.7,,labelled\nc.png,42,,\n")
    let images = try LabelledSet.load(directory)
    #expect(images.map(\.pointsLabelled) == [false, true, true])
    #expect(images[0].judged("05.391") == "05391")
    #expect(images[1].judged("36.7") == "36.7")
    #expect(images[2].judged("4.2") == "4.2")
    #expect(images[0].isRight("05.391") && images[0].isRight("05391") && !images[0].isRight("5391"))
    #expect(!images[1].isRight("367") && images[1].isRight("36.7"))
    let error = #expect(throws: LabelledSet.Invalid.self) {
      try LabelledSet.load(try folder("file,text,accept,points\na.png,12,,maybe\n"))
    }
    #expect(error?.description.contains("line 2") == true)
  }

  /// A counter between 60619 and 60620: its tens turns with its last wheel, and either digit of
  /// each is right by digit, but 60610 and 60629 name them on either side of the reading line.
  @Test func tellsTurningWheelsNamedApart() {
    let counter = LabelledImage(path: "", text: "60619", accepted: ["6", "0", "6", "12", "90"])
    #expect(counter.turnsTogether("60619") == true)
    #expect(counter.turnsTogether("60620") == true)
    #expect(counter.turnsTogether("60610") == false)
    #expect(counter.turnsTogether("60629") == false)
    #expect(counter.isRight("60610"))
    // Over two 9s the hundreds turn too.
    let longer = LabelledImage(path: "", text: "3699", accepted: ["3", "67", "90", "90"])
    #expect(longer.turnsTogether("3700") == true)
    #expect(longer.turnsTogether("3600") == false)
    // No wheel turning with the last, or another length: no answer.
    #expect(LabelledImage(path: "", text: "1239", accepted: ["1", "2", "3", "90"]).turnsTogether("1230") == nil)
    #expect(counter.turnsTogether("6061") == nil)
  }

  @Test func namesTheLineAtFault() throws {
    #expect(throws: LabelledSet.Invalid.self) { try LabelledSet.load(try folder("name,value\na.png,1\n")) }
    let error = #expect(throws: LabelledSet.Invalid.self) {
      try LabelledSet.load(try folder("file,text,accept\na.png,12,1\n"))
    }
    #expect(error?.description.contains("line 2") == true)
    #expect(throws: LabelledSet.Invalid.self) { try LabelledSet.load("/nonexistent") }
  }
}
