import Foundation
import PhotometerProtocol
import PhotometerVision
import PhotometerVoting
import TestSupport
import Testing

/// Whole photos and crops sent with no window: the host finds the rows of digits in them, or
/// reads them whole, and takes the reading.
extension RecognizerPluginTests {
  /// Whole photos of a glucose meter and a thermometer (Tools/make-device-photos.py), no window
  /// given: the host finds the rows of digits, reads each, and takes the reading; a meter added
  /// without --roi gets the window found in its reference.
  @Test func readsDevicesWithNoWindowGiven() async throws {
    let folder = try await Rendered.devicePhotos(count: 3, seed: 1)
    let photos = try Rendered.rows(folder.appendingPathComponent("labels.csv"))
    let glucose = folder.appendingPathComponent(photos[0][0]).path
    let read = try await run(["read", "--json", glucose])
    #expect(read.status == 0, "\(read.standardError)")
    let result = try #require(try json(read).first)
    #expect(result["value"] as? String == photos[0][2])
    let window = try #require((result["windows"] as? [[String: Any]])?.first)
    // The digits' box lies within the box the row was cut from.
    let box = try #require(window["box"] as? [Double]), digits = try #require(window["digits"] as? [Double])
    #expect(
      digits[0] >= box[0] && digits[1] >= box[1] && digits[0] + digits[2] <= box[0] + box[2]
        && digits[1] + digits[3] <= box[1] + box[3], "\(digits) in \(box)")
    let thermometer = try await run([
      "read", "--json", "--kind", "thermometer", folder.appendingPathComponent(photos[2][0]).path,
    ])
    #expect(try json(thermometer).first?["value"] as? String == photos[2][2])

    let added = try await run(["meter", "add", "Gluco", "--kind", "glucose", "--reference", glucose])
    #expect(added.standardOutput.contains("Digit window found at"), "\(added.standardOutput)")
    let meter = try #require(try json(try await run(["meter", "show", "Gluco", "--json"])).first)
    let roi = try #require(meter["roi"] as? [Double])
    let truth = photos[0][3].split(separator: " ").compactMap { Double($0) }
    #expect(roi[0] <= truth[0] && roi[1] <= truth[1] && roi[0] + roi[2] >= truth[0] + truth[2] * 0.9, "\(roi)")
  }

  /// A thermometer of the field style whose row is cut with its display's frame reads 392 there,
  /// its point a pixel of the reader's height: not told the kind, the digits cut tight give the
  /// point, 39.2 (R160).
  @Test func readsAThermometersPointItsDisplaysFrameHid() async throws {
    try await expectReadBlind(photo: 22, seed: 10, kind: "thermometer", value: "39.2")
  }

  /// The search cuts the display of field seed 37's glucose meter by its frame, read 559 at 0.9,
  /// and by its digits, read 359 surely: the surer cut of the same display is taken (R171).
  @Test func readsTheDisplaysSurerTightCutOverItsFrame() async throws {
    try await expectReadBlind(photo: 0, seed: 37, kind: "glucose", value: "359")
  }

  /// Field seed 53's thermometer lies on a mat whose edge the finders take for the best row, too
  /// big for a scene's: the photo was judged a window cropped close and read whole, 9. Read whole
  /// unsurely, its rows are read as a scene's as well and the surer reading taken (R173).
  @Test func readsAScenesRowsWhenItsWholeReadingIsDoubted() async throws {
    try await expectReadBlind(photo: 14, seed: 53, kind: "thermometer", value: "35.2")
  }

  /// The orientation finder half doubts field seed 57's upright glucose meter (189 read surely as
  /// it came): its display does not stand upside down, and the turned search's 68 is not taken
  /// (R176).
  @Test func readsAnUprightDisplayTheOrientationFinderHalfDoubts() async throws {
    try await expectReadBlind(photo: 6, seed: 57, kind: "glucose", value: "189")
  }

  /// Field seed 50's glucose meter shows 319: the component finder's row leaves out the 3, its
  /// segments apart, and read 19 surely; the network's row, holding the 3, is read too (R175).
  @Test func readsTheLeadingDigitTheComponentsLeftOut() async throws {
    try await expectReadBlind(photo: 17, seed: 50, kind: "glucose", value: "319")
  }

  /// Renders the field style's device photos of `seed` up to `photo`, checks that one is a `kind`
  /// showing `value`, and expects it read so with no window and no kind given.
  private func expectReadBlind(photo index: Int, seed: Int, kind: String, value: String) async throws {
    let folder = try await Rendered.devicePhotos(count: index + 1, seed: seed, style: "field")
    let photo = try Rendered.rows(folder.appendingPathComponent("labels.csv"))[index]
    #expect(photo[1] == kind && photo[2] == value)
    let read = try await run(["read", "--json", folder.appendingPathComponent(photo[0]).path])
    #expect(read.status == 0, "\(read.standardError)")
    #expect(try json(read).first?["value"] as? String == value)
  }

  /// A phone's whole photo (a rendered device photo enlarged to 4,000 pixels, no window given) is
  /// searched decoded at a reduced size, and its window's boxes, and the window a meter added
  /// without --roi gets, are in the photo's own pixels.
  @Test func readsAPhoneSizedPhotoWithNoWindowGiven() async throws {
    let folder = try await Rendered.devicePhotos(count: 1, seed: 1)
    let photo = try #require(try Rendered.rows(folder.appendingPathComponent("labels.csv")).first)
    let small = try VisionImage(decoding: [UInt8](try Data(contentsOf: folder.appendingPathComponent(photo[0]))))
    let factor = 4000 / Double(small.width)
    let large = try small.resized(width: 4000, height: Int((Double(small.height) * factor).rounded()))
    let path = folder.appendingPathComponent("phone.jpg")
    try Data(try large.encoded(jpeg: true)).write(to: path)
    #expect(try VisionImage(decoding: large.encoded(jpeg: true), reducedToAtLeast: WindowChoice.searchSide).scale < 1)
    let truth = photo[3].split(separator: " ").compactMap { Int32($0) }
    let scaledTruth = Rect(x: truth[0], y: truth[1], width: truth[2], height: truth[3]).scaled(by: factor)

    let read = try await run(["read", "--json", path.path])
    #expect(read.status == 0, "\(read.standardError)")
    let result = try #require(try json(read).first)
    #expect(result["value"] as? String == photo[2])
    let window = try #require((result["windows"] as? [[String: Any]])?.first)
    let digits = try #require(window["digits"] as? [Double]).map { Int32($0) }
    let overlap = Rect(x: digits[0], y: digits[1], width: digits[2], height: digits[3]).overlap(with: scaledTruth)
    #expect(overlap >= 0.5, "digits \(digits), truth \(scaledTruth)")

    let added = try await run(["meter", "add", "Phone", "--kind", "glucose", "--reference", path.path])
    #expect(added.standardOutput.contains("Digit window found at"), "\(added.standardOutput)")
    let meter = try #require(try json(try await run(["meter", "show", "Phone", "--json"])).first)
    let roi = try #require(meter["roi"] as? [Double]).map { Int32($0) }
    #expect(
      Rect(x: roi[0], y: roi[1], width: roi[2], height: roi[3]).overlapArea(with: scaledTruth)
        >= 0.9 * scaledTruth.area, "\(roi) holds \(scaledTruth)")
  }

  /// A glucose meter's or thermometer's display cropped close (a tenth of its height to spare,
  /// 300 pixels high), sent with no window: its digits, found each alone as rows, were read one
  /// at a time (253 read 0); shaped like a window, the crop is read whole as well (R164).
  @Test func readsADisplayCroppedClose() async throws {
    let folder = try await Rendered.devicePhotos(count: 4, seed: 1)
    for row in try Rendered.rows(folder.appendingPathComponent("labels.csv")) {
      let read = try await run(["read", "--json", try displayCrop(row, of: folder, pad: 0.1).path])
      #expect(read.status == 0, "\(read.standardError)")
      #expect(try json(read).first?["value"] as? String == row[2], "\(read.standardOutput)")
    }
  }

  /// A display cropped with half its height to spare is narrower than a window (under 1.8:1):
  /// the row taken in it, a digit or a segment, is read unsurely (36.0 and 37.4 read 1), so the
  /// crop is surveyed whole and read whole as well (R165).
  @Test func readsADisplayCroppedWithAMargin() async throws {
    let folder = try await Rendered.devicePhotos(count: 6, seed: 1)
    let rows = try Rendered.rows(folder.appendingPathComponent("labels.csv"))
    for row in [rows[2], rows[5]] {
      let read = try await run(["read", "--json", try displayCrop(row, of: folder, pad: 0.5).path])
      #expect(read.status == 0, "\(read.standardError)")
      #expect(try json(read).first?["value"] as? String == row[2], "\(read.standardOutput)")
    }
  }

  /// A thermometer's display cropped with half its height to spare, read whole: its point, a
  /// pixel at the reader's height in the whole crop, is read in its digits cut tight (40.5 read
  /// 405; R166).
  @Test func readsTheThermometersPointInADisplayCroppedWithAMargin() async throws {
    let folder = try await Rendered.devicePhotos(count: 1, seed: 6)
    let row = try #require(try Rendered.rows(folder.appendingPathComponent("labels.csv")).first)
    #expect(row[1] == "thermometer" && row[2] == "40.5", "the generator's seed 6 should draw this")
    let read = try await run(["read", "--json", try displayCrop(row, of: folder, pad: 0.5).path])
    #expect(read.status == 0, "\(read.standardError)")
    #expect(try json(read).first?["value"] as? String == row[2], "\(read.standardOutput)")
  }

  /// The display of a device photo (`row` of its labels: file, kind, value, box) cut with `pad`
  /// of its height to spare, 300 pixels high, written beside it as a JPEG.
  private func displayCrop(_ row: [String], of folder: URL, pad share: Float) throws -> URL {
    let photo = try VisionImage(decoding: [UInt8](try Data(contentsOf: folder.appendingPathComponent(row[0]))))
    let box = row[3].split(separator: " ").compactMap { Float($0) }
    let pad = (share * box[3]).rounded()
    let (left, top) = (max(0, box[0] - pad), max(0, box[1] - pad))
    let right = min(Float(photo.width), box[0] + box[2] + pad)
    let bottom = min(Float(photo.height), box[1] + box[3] + pad)
    let crop = try photo.straightened(
      [(left, top), (right, top), (right, bottom), (left, bottom)],
      width: Int((300 * (right - left) / (bottom - top)).rounded()), height: 300)
    let path = folder.appendingPathComponent("display-\(share)-\(row[0])")
    try Data(try crop.encoded(jpeg: true)).write(to: path)
    return path
  }

  /// A counter's window a user cropped from a phone's photo (strips of one meterdigits set-up,
  /// enlarged to 400 pixels high), sent with no window, is read whole: its wheels, each in its
  /// photo's frame, were found as rows side by side, and one was taken (337887 read 887).
  @Test(.enabled(if: FileManager.default.fileExists(atPath: "\(Products.repository)/../shared/data/meterdigits/0.0")))
  func readsACroppedWindowWhole() async throws {
    let folder = try await Rendered.digits("real", count: 4, seed: 3, extra: ["--meter"])
    for row in try Rendered.rows(folder.appendingPathComponent("labels.csv")) {
      let small = try VisionImage(decoding: [UInt8](try Data(contentsOf: folder.appendingPathComponent(row[0]))))
      let large = try small.resized(
        width: Int((400 * Float(small.width) / Float(small.height)).rounded()), height: 400)
      let path = folder.appendingPathComponent("cropped-\(row[0]).jpg")
      try Data(try large.encoded(jpeg: true)).write(to: path)
      let read = try await run(["read", "--json", path.path])
      #expect(read.status == 0, "\(read.standardError)")
      let value = try #require(try json(read).first?["value"] as? String)
      #expect(value.filter(\.isNumber) == row[1], "\(read.standardOutput)")
    }
  }

  /// A whole photo that lost its EXIF orientation (turned a quarter turn, or upside down) is read
  /// turned upright, and its window's box is given in the photo as it came. A meter added with
  /// such a reference gets no window (one carried through the homography would hold its digits
  /// sideways): its photos are read whole, each turned upright.
  @Test func readsAPhotoThatLostItsOrientation() async throws {
    for turn in [90, 180] {
      let folder = try await Rendered.devicePhotos(count: 1, seed: 1, turn: turn)
      let photo = try #require(try Rendered.rows(folder.appendingPathComponent("labels.csv")).first)
      let path = folder.appendingPathComponent(photo[0]).path
      let read = try await run(["read", "--json", path])
      #expect(read.status == 0, "\(read.standardError)")
      let result = try #require(try json(read).first)
      #expect(result["value"] as? String == photo[2], "turned \(turn)")
      let window = try #require((result["windows"] as? [[String: Any]])?.first)
      let digits = try #require(window["digits"] as? [Double]).map { Int32($0) }
      let truth = photo[3].split(separator: " ").compactMap { Int32($0) }
      let overlap = Rect(x: digits[0], y: digits[1], width: digits[2], height: digits[3]).overlap(
        with: Rect(x: truth[0], y: truth[1], width: truth[2], height: truth[3]))
      #expect(overlap >= 0.5, "turned \(turn): digits \(digits), truth \(truth)")

      let name = "Turned\(turn)"
      let added = try await run(["meter", "add", name, "--kind", "glucose", "--reference", path])
      #expect(added.status == 0 && !added.standardOutput.contains("Digit window found"), "\(added.standardOutput)")
      let meter = try #require(try json(try await run(["meter", "show", name, "--json"])).first)
      #expect(meter["roi"] as? [Double] == nil, "\(meter)")
      let byMeter = try await run(["read", "--meter", name, "--json", path])
      #expect(try json(byMeter).first?["value"] as? String == photo[2], "\(byMeter.standardError)")
    }
  }

  /// Whole photos of blood-pressure monitors, no window given, the kind told or not: the host
  /// finds the three lines among the rows of digits and joins them; a monitor added without
  /// --roi gets the box around its lines, and reads there.
  @Test func readsABloodPressureMonitorWithNoWindowGiven() async throws {
    let folder = try await Rendered.devicePhotos(count: 2, seed: 1, kind: "blood-pressure")
    let photos = try Rendered.rows(folder.appendingPathComponent("labels.csv"))
    let read = try await run([
      "read", "--json", "--kind", "blood-pressure", folder.appendingPathComponent(photos[0][0]).path,
    ])
    #expect(read.status == 0, "\(read.standardError)")
    let result = try #require(try json(read).first)
    #expect(result["value"] as? String == photos[0][2])
    // The first window is the box around the three lines: the true lines' box, by IoU.
    let box = try #require((result["windows"] as? [[String: Any]])?.first?["box"] as? [Double])
    let truth = photos[0][3].split(separator: " ").compactMap { Double($0) }
    let shared =
      max(0, min(box[0] + box[2], truth[0] + truth[2]) - max(box[0], truth[0]))
      * max(0, min(box[1] + box[3], truth[1] + truth[3]) - max(box[1], truth[1]))
    #expect(shared / (box[2] * box[3] + truth[2] * truth[3] - shared) >= 0.7, "\(box) against \(truth)")

    // Not told the kind, three lines read surely that make a blood pressure say it themselves.
    let blind = try await run(["read", "--json", folder.appendingPathComponent(photos[0][0]).path])
    #expect(try json(blind).first?["value"] as? String == photos[0][2], "\(blind.standardOutput)")

    let monitor = folder.appendingPathComponent(photos[1][0]).path
    let added = try await run(["meter", "add", "BP", "--kind", "blood-pressure", "--reference", monitor])
    #expect(added.standardOutput.contains("Digit window found at"), "\(added.standardOutput)")
    let again = try await run(["read", "--json", "--meter", "BP", monitor])
    #expect(try json(again).first?["value"] as? String == photos[1][2], "\(again.standardOutput)")
  }

  /// Not told the kind, a monitor whose pulse line is found in no row (photo 52 of seed 3; photo
  /// 21 until rows found got a training of their own, R188, which reads its two lines as one
  /// row): its systolic and diastolic rows, read surely and alike in height, say it is one, and
  /// the pulse is read from the display grown down from them; one whose systolic alone is found (photo 33; in
  /// photo 18 below a taller box read surely in the systolic range), the display's other two
  /// lines read at 0.8 or more, also when the row paired with it is the pulse; and told the kind,
  /// photo 33 the same way (photo 21 until the lines went as found rows, R208: its pulse's 7 and
  /// ghost segments now read 0).
  /// A glucose meter's value over a small memory number read surely (photo 20 of seed 2: 161 over
  /// 99) stays a glucose reading.
  @Test func aMonitorsSureLinesLeadToTheRest() async throws {
    let monitors = try await Rendered.devicePhotos(count: 53, seed: 3, kind: "blood-pressure")
    let labels = try Rendered.rows(monitors.appendingPathComponent("labels.csv"))
    for monitor in [labels[18], labels[52], labels[33]] {
      let read = try await run(["read", "--json", monitors.appendingPathComponent(monitor[0]).path])
      #expect(read.status == 0, "\(read.standardError)")
      let result = try #require(try json(read).first)
      #expect(result["value"] as? String == monitor[2], "\(read.standardOutput)")
      let windows = try #require(result["windows"] as? [[String: Any]])
      #expect(windows.count >= 2 && windows[0]["value"] as? String == monitor[2], "\(windows)")
    }
    // A systolic row paired surely with the pulse, too small to be its diastolic (photo 66 of
    // seed 1): the display below the systolic alone gives the rest.
    let paired = try await Rendered.devicePhotos(count: 67, seed: 1, kind: "blood-pressure")
    let pairedMonitor = try Rendered.rows(paired.appendingPathComponent("labels.csv"))[66]
    let pairedRead = try await run(["read", "--json", paired.appendingPathComponent(pairedMonitor[0]).path])
    #expect(try json(pairedRead).first?["value"] as? String == pairedMonitor[2], "\(pairedRead.standardOutput)")
    // Told the kind, the two sure lines come before the display read whole: they follow the
    // display's box in the windows.
    let told = try await run([
      "read", "--json", "--kind", "blood-pressure", monitors.appendingPathComponent(labels[33][0]).path,
    ])
    let toldResult = try #require(try json(told).first)
    #expect(toldResult["value"] as? String == labels[33][2], "\(told.standardOutput)")
    let toldWindows = try #require(toldResult["windows"] as? [[String: Any]]).map { $0["value"] as? String ?? "" }
    let sureLines = labels[33][2].split(separator: "/").prefix(2).map(String.init)
    #expect(Array(toldWindows.dropFirst().prefix(2)) == sureLines, "\(toldWindows)")

    let devices = try await Rendered.devicePhotos(count: 21, seed: 2)
    let glucose = try Rendered.rows(devices.appendingPathComponent("labels.csv"))[20]
    let value = try json(try await run(["read", "--json", devices.appendingPathComponent(glucose[0]).path]))
    #expect(value.first?["value"] as? String == glucose[2], "\(value)")
  }

  /// Not told the kind, a monitor read as its three lines as the photo came is not replaced by the
  /// search of the photo turned as the orientation finder names it, which reads a single row as
  /// surely (photo 25 of seed 5: 107/60/83 against 8, both at 0.95; R209).
  @Test func aMonitorReadAsItCameIsNotTakenTurned() async throws {
    let monitors = try await Rendered.devicePhotos(count: 26, seed: 5, kind: "blood-pressure")
    let monitor = try Rendered.rows(monitors.appendingPathComponent("labels.csv"))[25]
    let read = try await run(["read", "--json", monitors.appendingPathComponent(monitor[0]).path])
    #expect(try json(read).first?["value"] as? String == monitor[2], "\(read.standardOutput)")
  }

  /// Not told the kind, a monitor whose small pulse the search missed is not read with a row
  /// further down taken as its pulse (photo 21 of seed 10: its buttons' row, read 09, made
  /// 98/66/09 of 98/66/50); a pulse must adjoin the diastolic, and the display grown down from
  /// the two is cut into lines from the top (R210).
  @Test func aMonitorsPulseIsTheLineUnderItsDiastolic() async throws {
    let monitors = try await Rendered.devicePhotos(count: 22, seed: 10, kind: "blood-pressure")
    let monitor = try Rendered.rows(monitors.appendingPathComponent("labels.csv"))[21]
    let read = try await run(["read", "--json", monitors.appendingPathComponent(monitor[0]).path])
    #expect(try json(read).first?["value"] as? String == monitor[2], "\(read.standardOutput)")
  }

  /// Not told the kind, a monitor found by its systolic row alone is read from the display grown
  /// down from it; a diastolic read there surely vouches for the pulse below it as a found pair
  /// does (photo 4 of the field style's seed 13: 113/69/74, its pulse read at under 0.8, was
  /// read 113; R211, R212).
  @Test func aSureDiastolicVouchesForThePulseBelowIt() async throws {
    let monitors = try await Rendered.devicePhotos(count: 5, seed: 13, style: "field", kind: "blood-pressure")
    let monitor = try Rendered.rows(monitors.appendingPathComponent("labels.csv"))[4]
    let read = try await run(["read", "--json", monitors.appendingPathComponent(monitor[0]).path])
    #expect(try json(read).first?["value"] as? String == monitor[2], "\(read.standardOutput)")
  }
}
