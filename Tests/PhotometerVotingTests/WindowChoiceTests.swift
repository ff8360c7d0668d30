import PhotometerProtocol
import PhotometerVoting
import Testing

@Suite struct WindowChoiceTests {
  static func row(
    _ value: String, score: Double, confidence: Double = 0.9, digits: Int? = nil,
    box: Rect = Rect(x: 0, y: 0, width: 10, height: 10)
  ) -> WindowChoice.Candidate {
    WindowChoice.Candidate(
      box: box, score: score, digits: digits ?? value.filter(\.isNumber).count, value: value, confidence: confidence)
  }

  /// The case: a thermometer's 36.7 beside a clock's 10:42, read as 1042.
  /// A reading with no point takes the point its digits cut tight show, read surely, and nothing
  /// else: other digits, two points, an unsure reading or a reading with a point already leave it.
  @Test func aTightCutGivesAPointAndNeverADigit() {
    #expect(WindowChoice.pointed("392", by: "39.2", confidence: 0.95) == "39.2")
    #expect(WindowChoice.pointed("392", by: "38.2", confidence: 0.99) == nil)
    #expect(WindowChoice.pointed("392", by: "3.9.2", confidence: 0.99) == nil)
    #expect(WindowChoice.pointed("392", by: "39.2", confidence: 0.85) == nil)
    #expect(WindowChoice.pointed("392", by: "392", confidence: 0.99) == nil)
    #expect(WindowChoice.pointed("39.2", by: "3.92", confidence: 0.99) == nil)
    #expect(WindowChoice.pointed("7", by: ".7", confidence: 0.99) == nil)
    // A photo read whole is cut tight for a point only when it reads a display's value (two to
    // four digits); a counter's window shows its decimals on wheels.
    #expect(WindowChoice.wholeNeedsPoint("405"))
    #expect(WindowChoice.wholeNeedsPoint("1234"))
    #expect(!WindowChoice.wholeNeedsPoint("00530"))
    #expect(!WindowChoice.wholeNeedsPoint("40.5"))
    #expect(!WindowChoice.wholeNeedsPoint("7"))
  }

  /// The search cuts a display twice, by its frame and by its digits; the frame's cut, more
  /// prominent and read unsurely or less surely, gives way to the digits' cut read surely (R171).
  /// Not to a tight cut that lost a digit, a label inside the display, a row elsewhere, an unsure
  /// cut, or, told the kind, a cut that does not fit it.
  @Test func aDisplaysSurerTightCutIsTakenOverItsFrame() {
    let frame = Rect(x: 362, y: 90, width: 95, height: 78)
    let tight = Rect(x: 367, y: 96, width: 63, height: 54)
    let cuts = [
      Self.row("30.1", score: 300, confidence: 0.69, box: frame),
      Self.row("37.1", score: 150, confidence: 0.92, box: tight),
    ]
    #expect(WindowChoice.choose(cuts, kind: nil) == 1)
    #expect(WindowChoice.choose(cuts, kind: .thermometer) == 1)
    let surer = [
      Self.row("30.1", score: 300, confidence: 0.91, box: frame),
      Self.row("37.1", score: 150, confidence: 0.99, box: tight),
    ]
    #expect(WindowChoice.choose(surer, kind: nil) == 1)
    let lost = [
      Self.row("311", score: 300, confidence: 0.91, box: frame),
      Self.row("11", score: 150, confidence: 1.0, box: tight),
    ]
    #expect(WindowChoice.choose(lost, kind: nil) == 0)
    let label = [
      Self.row("336", score: 300, confidence: 0.91, box: Rect(x: 256, y: 131, width: 203, height: 144)),
      Self.row("053", score: 40, confidence: 0.95, box: Rect(x: 237, y: 165, width: 49, height: 37)),
    ]
    #expect(WindowChoice.choose(label, kind: nil) == 0)
    let apart = [
      Self.row("30.1", score: 300, confidence: 0.91, box: frame),
      Self.row("37.1", score: 150, confidence: 0.99, box: Rect(x: 0, y: 300, width: 63, height: 54)),
    ]
    #expect(WindowChoice.choose(apart, kind: nil) == 0)
    let unsure = [
      Self.row("30.1", score: 300, confidence: 0.69, box: frame),
      Self.row("37.1", score: 150, confidence: 0.85, box: tight),
    ]
    #expect(WindowChoice.choose(unsure, kind: nil) == 0)
    let unfitting = [
      Self.row("37.1", score: 300, confidence: 0.8, box: frame),
      Self.row("371", score: 150, confidence: 0.95, box: tight),
    ]
    #expect(WindowChoice.choose(unfitting, kind: .thermometer) == 0)
    #expect(WindowChoice.choose(unfitting, kind: nil) == 1)
  }

  /// A row read surely, of two digits or more, is weighed before the rows read unsurely however
  /// prominent they are (a device's frame or label read 6 or 04 beside its display's 35.9 read at
  /// 1.00, R193); a lone digit read surely is not (an icon's, a blank place's ghost).
  @Test func aSureRowIsWeighedBeforeProminentUnsureOnes() {
    let display = [
      Self.row("6", score: 600, confidence: 0.87, box: Rect(x: 0, y: 0, width: 567, height: 213)),
      Self.row("35.9", score: 150, confidence: 1.0, box: Rect(x: 399, y: 111, width: 85, height: 76)),
    ]
    #expect(WindowChoice.choose(display, kind: nil) == 1)
    let apart = [
      Self.row("04", score: 400, confidence: 0.76, box: Rect(x: 0, y: 329, width: 231, height: 185)),
      Self.row("39.1", score: 150, confidence: 1.0, box: Rect(x: 623, y: 207, width: 138, height: 104)),
    ]
    #expect(WindowChoice.choose(apart, kind: nil) == 1)
    let icon = [
      Self.row("135", score: 400, confidence: 0.8, box: Rect(x: 100, y: 100, width: 200, height: 100)),
      Self.row("0", score: 50, confidence: 0.99, box: Rect(x: 400, y: 300, width: 43, height: 43)),
    ]
    #expect(WindowChoice.choose(icon, kind: nil) == 0)
  }

  @Test func theKindPicksTheRowInItsRange() {
    let rows = [Self.row("1042", score: 300), Self.row("36.7", score: 200)]
    #expect(WindowChoice.choose(rows, kind: .thermometer) == 1)
    #expect(WindowChoice.choose(rows, kind: nil) == 0)
  }

  /// A glucose meter's 179 and a small box inside its display read 41, surer: both fit the kind,
  /// and the display's prominence decides, as it does when no kind is told.
  @Test func amongRowsThatFitTheKindTheMostProminentConfidentRowWins() {
    let rows = [Self.row("41", score: 60, confidence: 1.0), Self.row("179", score: 300, confidence: 0.95)]
    #expect(WindowChoice.choose(rows, kind: .glucose) == 1)
    #expect(WindowChoice.choose(rows, kind: nil) == 1)
    let unsure = [Self.row("41", score: 60, confidence: 1.0), Self.row("179", score: 300, confidence: 0.3)]
    #expect(WindowChoice.choose(unsure, kind: .glucose) == 0)
  }

  @Test func withoutAFittingRowTheMostProminentConfidentRowWins() {
    let rows = [Self.row("12", score: 400, confidence: 0.2), Self.row("118", score: 250), Self.row("7", score: 100)]
    #expect(WindowChoice.choose(rows, kind: .thermometer) == 1)
    #expect(WindowChoice.choose(rows, kind: nil) == 1)
  }

  /// A row the finder saw as three digits, read as one, is likelier a misread than the reading.
  @Test func aRowReadWithFewerDigitsThanItShowsCountsLess() {
    let rows = [Self.row("0", score: 320, digits: 3), Self.row("85", score: 120)]
    #expect(WindowChoice.choose(rows, kind: nil) == 1)
  }

  /// A blood-pressure monitor: a clock above its three lines, a label's number beside them.
  @Test func aMonitorsLinesAreTheStackedRowsThatMakeABloodPressure() {
    func line(_ value: String, x: Int32, y: Int32, height: Int32, score: Double = 200) -> WindowChoice.Candidate {
      WindowChoice.Candidate(
        box: Rect(x: x, y: y, width: 3 * height, height: height), score: score, digits: value.count, value: value,
        confidence: 0.95)
    }
    let clock = line("1042", x: 100, y: 20, height: 20, score: 300)
    let systolic = line("128", x: 100, y: 50, height: 60)
    let label = line("118", x: 400, y: 130, height: 60)
    let diastolic = line("84", x: 110, y: 120, height: 55)
    let pulse = line("72", x: 160, y: 185, height: 35)
    let rows = [clock, pulse, label, systolic, diastolic]
    let allow = Plausibility.allowsBloodPressure
    #expect(WindowChoice.lines(rows, count: 3, allow: allow) == [3, 4, 1])
    // Upside down the lines fit no blood pressure; without the pulse, nothing fits.
    let upsideDown = [pulse, diastolic, systolic].map { row in
      var row = row
      row.box.y = 300 - row.box.y
      return row
    }
    #expect(WindowChoice.lines(upsideDown, count: 3, allow: allow) == nil)
    #expect(WindowChoice.lines([clock, systolic, diastolic, label], count: 3, allow: allow) == nil)
    // With any values allowed, the weightiest stack.
    #expect(WindowChoice.lines([systolic, diastolic, pulse], count: 3, allow: { _ in true }) == [0, 1, 2])
    // Not told the kind, a line read unsurely does not make a monitor.
    #expect(WindowChoice.bloodPressureLines(rows, sure: true) == [3, 4, 1])
    var unsure = pulse
    unsure.confidence = 0.3
    #expect(WindowChoice.bloodPressureLines([systolic, diastolic, unsure]) == [0, 1, 2])
    #expect(WindowChoice.bloodPressureLines([systolic, diastolic, unsure], sure: true) == nil)
    // A monitor shows no point: a diastolic read "8.4" is its 84.
    var pointed = diastolic
    pointed.value = "8.4"
    #expect(WindowChoice.bloodPressureLines([systolic, pointed, pulse]) == [0, 1, 2])
    // Nor a leading 0: a diastolic read "02" over its ghost segments is its 72.
    var ghosted = diastolic
    ghosted.value = "02"
    #expect(WindowChoice.bloodPressureLines([systolic, ghosted, pulse]) == [0, 1, 2])
    // Its systolic and diastolic alone, read surely: where to look for the pulse.
    #expect(WindowChoice.bloodPressureLines([systolic, diastolic, unsure], sure: true, fields: 2) == [0, 1])
    #expect(WindowChoice.bloodPressureLines([diastolic, clock], sure: true, fields: 2) == nil)
    // A row further below the diastolic than half its height leaves room for a pulse not found:
    // the round buttons under the display, read "00" (70 over its ghosts), are no pulse (R210).
    let buttons = line("00", x: 150, y: 175 + 28 + 1, height: 40)
    #expect(WindowChoice.bloodPressureLines([systolic, diastolic, buttons], sure: true) == nil)
    #expect(WindowChoice.bloodPressureLines([systolic, diastolic, buttons, pulse], sure: true) == [0, 1, 3])
  }

  @Test func aPhotoThatIsItselfAWindowIsReadWhole() {
    let small = Rect(x: 200, y: 150, width: 150, height: 60)
    #expect(WindowChoice.isScene(width: 640, height: 480, rows: [(small, 3)]))
    #expect(!WindowChoice.isScene(width: 272, height: 78, rows: [(Rect(x: 10, y: 10, width: 60, height: 20), 3)]))
    #expect(
      !WindowChoice.isScene(
        width: 640, height: 480, rows: [(Rect(x: 0, y: 0, width: 600, height: 100), 8), (small, 3)]))
    #expect(!WindowChoice.isScene(width: 640, height: 480, rows: []))
    // A row of one digit over most of the photo (a monitor's lines or body found as one box) is
    // no window while a row of two digits or more is found; alone, it is.
    let tall = Rect(x: 0, y: 0, width: 430, height: 420)
    #expect(WindowChoice.isScene(width: 640, height: 480, rows: [(tall, 1), (small, 3)]))
    #expect(!WindowChoice.isScene(width: 640, height: 480, rows: [(tall, 2), (small, 3)]))
    #expect(!WindowChoice.isScene(width: 640, height: 480, rows: [(tall, 1)]))
  }

  /// A counter's window cropped from a phone's photo is read whole, however its rows are found:
  /// the frames between its wheels split its digits into rows side by side, touching or
  /// overlapping, which make one line; cut close, its digits fill the photo's height; and a crop
  /// 2.5 times wider than high or more is a window (a phone's photos are 4:3 or 16:9). A label's
  /// number beside a display, of the display's height but standing apart, does not join it.
  @Test func aWindowCroppedFromAPhotoIsReadWhole() {
    let split: [(box: Rect, digits: Int)] = [
      (Rect(x: 380, y: 90, width: 260, height: 300), 2), (Rect(x: 620, y: 80, width: 280, height: 310), 3),
      (Rect(x: 100, y: 100, width: 300, height: 290), 3),
    ]
    #expect(WindowChoice.isScene(width: 1000, height: 480, rows: Array(split.prefix(1))))
    #expect(!WindowChoice.isScene(width: 1000, height: 480, rows: split))
    #expect(!WindowChoice.isScene(width: 800, height: 400, rows: [(Rect(x: 300, y: 10, width: 200, height: 380), 2)]))
    #expect(!WindowChoice.isScene(width: 1500, height: 400, rows: [(Rect(x: 600, y: 100, width: 300, height: 200), 2)]))
    // A rendered device photo: the display's row and a label's, in line but apart.
    let display = Rect(x: 528, y: 166, width: 134, height: 91)
    let label = Rect(x: 108, y: 198, width: 165, height: 112)
    #expect(WindowChoice.isScene(width: 700, height: 520, rows: [(display, 3), (label, 3)]))
    // A monitor's systolic row and the box found around its lines (blood-pressure seed 3, photo
    // 18): a box around the row is no part of its line.
    let systolic = Rect(x: 291, y: 74, width: 248, height: 292)
    let lines = Rect(x: 190, y: 5, width: 417, height: 457)
    #expect(WindowChoice.isScene(width: 676, height: 561, rows: [(systolic, 2), (lines, 1)]))
  }

  /// A display cropped close is shaped like a window (1.8:1 or wider; a phone's photos are at
  /// most 16:9), or has its row read unsurely (under 0.9; not a monitor told the kind), and is
  /// read whole as well as searched; the whole reading is taken when it is surer, holds as many
  /// digits or more and, told the kind, fits it.
  @Test func aDisplayCroppedCloseIsReadWholeWhenThatIsSurer() {
    #expect(WindowChoice.mayBeWindow(width: 660, height: 300, chosen: 0.99, kind: nil))
    #expect(!WindowChoice.mayBeWindow(width: 1920, height: 1080, chosen: 0.95, kind: nil))
    #expect(!WindowChoice.mayBeWindow(width: 300, height: 660, chosen: 0.9, kind: .glucose))
    #expect(WindowChoice.mayBeWindow(width: 450, height: 300, chosen: 0.6, kind: nil))
    #expect(WindowChoice.mayBeWindow(width: 450, height: 300, chosen: 0.89, kind: .thermometer))
    #expect(!WindowChoice.mayBeWindow(width: 450, height: 300, chosen: 0.6, kind: .bloodPressure))
    // The other way: a photo judged no scene and read whole unsurely has its rows read too,
    // unless it is a counter's window, wide (R173, R174), or a monitor told the kind.
    #expect(WindowChoice.mayBeScene(width: 800, height: 600, whole: 0.6, kind: nil))
    #expect(!WindowChoice.mayBeScene(width: 800, height: 600, whole: 0.95, kind: nil))
    #expect(!WindowChoice.mayBeScene(width: 900, height: 400, whole: 0.6, kind: nil))
    #expect(!WindowChoice.mayBeScene(width: 800, height: 600, whole: 0.6, kind: .bloodPressure))
    func read(_ value: String, _ confidence: Double) -> ReadResult {
      ReadResult(value: value, confidence: confidence, engines: [], flags: [], summary: "")
    }
    // One of the display's digits, found alone, against the display read whole.
    #expect(WindowChoice.prefers(read("253", 0.97), over: read("0", 0.11), kind: nil))
    #expect(!WindowChoice.prefers(read("8", 0.97), over: read("253", 0.90), kind: nil))
    #expect(!WindowChoice.prefers(read("253", 0.80), over: read("253", 0.90), kind: nil))
    #expect(WindowChoice.prefers(read("367", 0.97), over: read("1", 0.30), kind: .thermometer))
    #expect(!WindowChoice.prefers(read("9999", 0.97), over: read("1", 0.30), kind: .thermometer))
  }

  /// A thermometer shows tenths: 36.7 fits it, 367 and 37 do not; a glucose meter shows whole
  /// mg/dL or tenths of mmol/L.
  @Test func aKindFitsValuesInItsRangeAndFormat() {
    #expect(WindowChoice.fits("36.7", kind: .thermometer))
    #expect(WindowChoice.fits("100.4", kind: .thermometer), "Fahrenheit")
    #expect(!WindowChoice.fits("367", kind: .thermometer))
    #expect(!WindowChoice.fits("37", kind: .thermometer))
    #expect(WindowChoice.fits("245", kind: .glucose) && WindowChoice.fits("5.6", kind: .glucose))
    #expect(!WindowChoice.fits("6245", kind: .glucose))
    #expect(WindowChoice.fits("12345", kind: .water), "a kind without formats takes any")
  }

  /// Told the kind, a value read without its point is shown in the first of the kind's formats of
  /// its digit count that it then fits; a value that fits, or fits no format, stays as read.
  @Test func aValueIsShownInItsKindsFormat() {
    #expect(WindowChoice.inFormat("356", kind: .thermometer) == "35.6")
    #expect(WindowChoice.inFormat("1004", kind: .thermometer) == "100.4", "Fahrenheit")
    #expect(WindowChoice.inFormat("35.6", kind: .thermometer) == "35.6")
    #expect(WindowChoice.inFormat("3.56", kind: .thermometer) == "3.56", "a point read stands")
    #expect(WindowChoice.inFormat("856", kind: .thermometer) == "856", "85.6 C or F is no body's")
    #expect(WindowChoice.inFormat("37", kind: .thermometer) == "37")
    #expect(WindowChoice.inFormat("245", kind: .glucose) == "245")
    #expect(WindowChoice.inFormat("1234", kind: .water) == "1234")
  }

  /// A thermometer or a glucose meter shows a number: the value taken, told the kind, loses
  /// a blank place's ghost segments read as a leading zero (R183); a counter's zeros stay, and
  /// a row's fit to the kind is judged as read (a clock's 0427 is no glucose meter's 427).
  @Test func aDevicesValueLosesTheZerosItsBlankPlacesShow() {
    #expect(WindowChoice.shown("039.1", kind: .thermometer) == "39.1")
    #expect(WindowChoice.shown("0356", kind: .thermometer) == "35.6")
    #expect(WindowChoice.shown("043", kind: .glucose) == "43")
    #expect(WindowChoice.shown("05.6", kind: .glucose) == "5.6")
    #expect(WindowChoice.shown("0.5", kind: .glucose) == "0.5", "a zero before the point is the value's")
    #expect(WindowChoice.shown("00530", kind: .water) == "00530")
    #expect(WindowChoice.shown("356", kind: .thermometer) == "35.6")
    #expect(!WindowChoice.fits("0427", kind: .glucose))
  }

  @Test func aFormatPlacesThePointOfAValueReadWithout() {
    let tenths = WindowChoice.DisplayFormat(digits: 3, decimals: 1)
    #expect(tenths.apply(to: "375") == "37.5")
    #expect(tenths.apply(to: "37.5") == "37.5")
    #expect(tenths.apply(to: "5") == "5")
    #expect(WindowChoice.DisplayFormat(of: "37.5") == tenths)
    #expect(WindowChoice.DisplayFormat(of: "290") == WindowChoice.DisplayFormat(digits: 3, decimals: 0))
  }

  /// Rows to read again only when none fits the kind: each row, the weightiest first, in each of
  /// the kind's formats; the surest re-read that fits is taken.
  @Test func rowsAreReadAgainInTheKindsFormatsWhenNoneFits() {
    let rows = [Self.row("8", score: 50), Self.row("375", score: 300)]
    let rereads = WindowChoice.rereads(rows, kind: .thermometer)
    #expect(rereads.map(\.row) == [1, 1, 0, 0])
    #expect(rereads.first?.format == WindowChoice.DisplayFormat(digits: 3, decimals: 1))
    #expect(WindowChoice.rereads(rows, kind: nil).isEmpty)
    #expect(WindowChoice.rereads(rows + [Self.row("36.6", score: 10)], kind: .thermometer).isEmpty)
    #expect(WindowChoice.rereads(rows, kind: .water).isEmpty, "every value fits a kind without formats")
    let values = [("37.5", 0.6), ("375.0", 0.9), ("38.0", 0.7)].map { (value: $0.0, confidence: $0.1) }
    #expect(WindowChoice.chooseReread(values, kind: .thermometer) == 2)
    #expect(WindowChoice.chooseReread([(value: "999", confidence: 1)], kind: .thermometer) == nil)
  }

  @Test func nothingReadIsNoChoice() {
    #expect(WindowChoice.choose([Self.row("", score: 100)], kind: nil) == nil)
    #expect(WindowChoice.choose([], kind: .glucose) == nil)
  }

  /// A monitor's fields read as a photo came are kept over a turned search's single row, however
  /// sure (R209); a turned search that reads a monitor too, or a single row as it came, is judged
  /// by its confidence as before.
  @Test func aMonitorReadAsItCameIsKeptOverATurnedRow() {
    #expect(WindowChoice.keepsAsCame("141/54/64", over: "0"))
    #expect(WindowChoice.keepsAsCame("141/54/64", over: "7.107"))
    #expect(!WindowChoice.keepsAsCame("141/54/64", over: "141/54/64"))
    #expect(!WindowChoice.keepsAsCame("141", over: "0"))
    #expect(!WindowChoice.keepsAsCame("", over: "0"))
  }
}
