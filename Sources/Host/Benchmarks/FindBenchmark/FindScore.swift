import DigitReader
import Foundation
import PhotometerProtocol
import PhotometerScoring
import PhotometerVision
import PhotometerVoting

/// A set's figures: photos whose chosen window overlaps the truth (IoU 0.5), read right not told
/// the kind and told it, and each photo's time not told the kind and told it (the rows read again
/// in the kind's formats when none fits).
struct FindTally {
  var photos = 0
  /// Photos whose chosen row's digits (its window less the margin it is cut with) overlap the
  /// true digits by IoU 0.5 (the photo's true digits and the row's are both upright boxes, so
  /// a turned row's digits are a larger box than they are wide and high).
  var found = 0
  /// The same for the window as cut, margin included (a perfect three-digit row's is 0.46).
  var foundWithMargin = 0
  var blind = 0
  var told = 0
  var milliseconds: [Double] = []
  var toldMilliseconds: [Double] = []

  static let header =
    "set | photos | window found (with its margin) | right, not told the kind | right, told the kind | p50 ms | p95 ms"
    + " | told p50 ms | told p95 ms"

  /// Counts one photo: the window chosen (nil: none) and the digits found in it, the values read
  /// not told the kind and told it, against the true digits' box and value.
  mutating func add(
    window: Rect?, digits: Rect?, blind: String?, told: String?, truth box: Rect, value: LabelledImage,
    milliseconds time: Double, toldMilliseconds toldTime: Double
  ) {
    photos += 1
    if let digits, digits.overlap(with: box) >= 0.5 { found += 1 }
    if let window, window.overlap(with: box) >= 0.5 { foundWithMargin += 1 }
    if value.isRight(blind ?? "") { self.blind += 1 }
    if value.isRight(told ?? "") { self.told += 1 }
    milliseconds.append(time)
    toldMilliseconds.append(toldTime)
  }

  func row(_ name: String) -> String {
    func share(_ count: Int) -> String { String(format: "%.1f%%", 100 * Double(count) / Double(max(photos, 1))) }
    func percentiles(_ times: [Double]) -> String {
      let sorted = times.sorted()
      guard !sorted.isEmpty else { return "- | -" }
      return String(format: "%.1f | %.1f", sorted[sorted.count / 2], sorted[sorted.count * 95 / 100])
    }
    return "\(name) | \(photos) | \(share(found)) (\(share(foundWithMargin))) | \(share(blind)) | \(share(told)) | "
      + "\(percentiles(milliseconds)) | \(percentiles(toldMilliseconds))"
  }
}

/// Where the photos read wrong not told the kind were lost, stage by stage: their true digits in
/// none of the rows the search found (as many as a monitor's search keeps), found but not among
/// the rows read, read but another row (or none) chosen, or chosen and read wrong. Monitors,
/// whose truth is their three lines' box, are left out.
struct FindMisses {
  var photos = 0
  var notFound = 0
  var notRead = 0
  var notChosen = 0
  var misread = 0
  /// Photos of the set (monitors too) the orientation finder names turned: read as they came
  /// here, searched turned as well by the host.
  var namedTurned = 0

  /// Counts one photo that is no monitor: whether its true digits lie in a row found and in a row
  /// read, whether the chosen row holds them, and whether its value was read right.
  mutating func add(found: Bool, read: Bool, chosen: Bool, right: Bool) {
    photos += 1
    guard !right else { return }
    if !found {
      notFound += 1
    } else if !read {
      notRead += 1
    } else if !chosen {
      notChosen += 1
    } else {
      misread += 1
    }
  }

  func row(_ name: String) -> String {
    "  \(name): of \(photos) photos (monitors left out), read wrong not told the kind: digits not found "
      + "\(notFound), found but not read \(notRead), read but not chosen \(notChosen), chosen and misread \(misread); "
      + "named turned by the orientation finder \(namedTurned) (read as they came here, searched turned too by the host)"
  }
}

/// Whole photos read as the host reads one with no window: rows found, each read, one chosen.
struct FindScore {
  var tally = FindTally()
  var misses = FindMisses()

  mutating func add(
    _ bytes: [UInt8], kind: MeterKind, value: LabelledImage, box: Rect, reader: ReaderPanel, showErrors: Bool,
    name: String, crops: URL?, finder: RowFinder, finders: RowFinder.Finders, orientation: OrientationFinder
  ) throws {
    let started = ContinuousClock.now
    // As the host: a large photo searched at the search's size, the true box scaled with it.
    let photo = try VisionImage(decoding: bytes, reducedToAtLeast: WindowChoice.searchSide)
    let box = photo.scale < 1 ? box.scaled(by: photo.scale) : box
    // As the host: one search, at a monitor's rows, serves the rows read first and the monitor's.
    let search = try finder.found(in: photo, limit: WindowChoice.rowsRead(for: .bloodPressure), finders: finders)
    let rows = search.rows(limit: WindowChoice.rowsRead(for: nil))
    // As the host: a photo that is itself a window is read whole (and the window counts as missed).
    let scene = WindowChoice.isScene(width: photo.width, height: photo.height, rows: rows.map { ($0.box, $0.digits) })
    if showErrors && !scene {
      print("  \(name): read whole; rows \(rows.map { "\($0.box) \(Int($0.score)) \($0.digits)" })")
    }
    let images = try (scene ? rows : []).map { try photo.rowCrop($0) }
    // As the host: the rows compared on survey reads, the chosen one read in full when it may differ.
    let surveys = try images.map { try reader.survey($0) }
    if let crops {
      for (index, crop) in images.enumerated() {
        try Data(try crop.encoded()).write(to: crops.appendingPathComponent("\(name)-\(index).png"))
      }
    }
    var candidates = Self.candidates(rows, surveys.map(\.reading))
    let surveyed = candidates
    // The row taken, read in full: the panel consults from its survey only where it is refinable.
    func completed(_ row: Int) throws -> EngineReading {
      try reader.read(images[row], first: surveys[row].reading)
    }
    // As the host: three lines read surely that make a blood pressure are a monitor's.
    let monitor =
      scene
      ? try Self.monitor(
        in: photo, rows: rows, images: images, surveys: surveys.map(\.reading), told: false, reader: reader,
        search: search) : nil
    let chosen = monitor == nil ? WindowChoice.choose(candidates, kind: nil) : nil
    if let chosen {
      let reading = try completed(chosen)
      candidates[chosen].value = reading.text
      candidates[chosen].confidence = reading.confidence
      // As the host: a reading with no point read again from its digits cut tight, for the point.
      if WindowChoice.needsPoint(reading.text), let inner = images[chosen].innerDigitRow() {
        let tight = try reader.read(try images[chosen].rowCrop(inner))
        if let value = WindowChoice.pointed(reading.text, by: tight.text, confidence: tight.confidence) {
          candidates[chosen].value = value
        }
      }
    }
    let time = (ContinuousClock.now - started).milliseconds
    // Told the kind, as the host: the rows read again in the kind's formats when none fits it.
    let formatted = surveyed.map { candidate in
      var candidate = candidate
      candidate.value = WindowChoice.inFormat(candidate.value, kind: kind)
      return candidate
    }
    let plan = WindowChoice.rereads(formatted, kind: kind)
    let rereads = try plan.map { try reader.survey(images[$0.row], digits: $0.format.digits) }
    let rereadValues = zip(plan, rereads).map { reread, survey in
      (value: reread.format.apply(to: survey.reading.text), confidence: survey.reading.confidence)
    }
    let told: String?
    if kind == .bloodPressure {
      let rows = search.rows(limit: WindowChoice.rowsRead(for: .bloodPressure))
      let images = try rows.map { try photo.rowCrop($0) }
      told = try Self.monitor(
        in: photo, rows: rows, images: images, surveys: try images.map { try reader.survey($0).reading }, told: true,
        reader: reader, search: search)?.value
    } else if let best = WindowChoice.chooseReread(rereadValues, kind: kind) {
      let reading = try reader.read(
        images[plan[best].row], digits: plan[best].format.digits, first: rereads[best].reading)
      told = WindowChoice.shown(plan[best].format.apply(to: reading.text), kind: kind)
    } else {
      told = try WindowChoice.choose(formatted, kind: kind).map {
        WindowChoice.shown(try completed($0).text, kind: kind)
      }
    }
    // A monitor's lines, when found, are the window and the blind value (`chosen` is then nil).
    let window = monitor?.box ?? chosen.map { candidates[$0].box }
    let digits = monitor?.digits ?? chosen.map { rows[$0].digitBox }
    let blind = monitor?.value ?? chosen.map { candidates[$0].value }
    tally.add(
      window: window, digits: digits, blind: blind, told: told, truth: box, value: value, milliseconds: time,
      toldMilliseconds: (ContinuousClock.now - started).milliseconds)
    // Outside the times: the host would search this photo turned as well.
    misses.namedTurned += try orientation.map(of: photo).quarterTurns == 0 ? 0 : 1
    if kind != .bloodPressure {
      let holds = { (row: VisionImage.DigitRow) in row.digitBox.overlap(with: box) >= 0.5 }
      misses.add(
        found: search.rows(limit: WindowChoice.rowsRead(for: .bloodPressure)).contains(where: holds),
        read: scene && rows.contains(where: holds), chosen: (digits?.overlap(with: box) ?? 0) >= 0.5,
        right: value.isRight(blind ?? ""))
    }
    guard showErrors else { return }
    if let digits {
      if digits.overlap(with: box) < 0.5 {
        let overlap = String(format: "%.2f", digits.overlap(with: box))
        print("  \(name): digits found at \(digits), IoU \(overlap) with the true \(box)")
      }
    } else {
      print("  \(name): no window chosen; the digits are at \(box)")
    }
    if !value.isRight(told ?? "") {
      print(
        "  \(name), told \(kind.rawValue): \(told ?? "none"), truth \(value.text); re-read \(rereadValues.map(\.value))"
      )
    }
    if !value.isRight(blind ?? "") {
      print(
        "  \(name): \(blind ?? "none"), truth \(value.text); rows "
          + candidates.map { "\($0.value) (\(String(format: "%.2f", $0.confidence)), \(Int($0.score)))" }
          .joined(separator: ", "))
    }
  }
}

extension FindScore {
  /// The rows found and their survey readings, as the window choice weighs them (the host's
  /// `ReadPipeline.candidates`).
  static func candidates(_ rows: [VisionImage.DigitRow], _ surveys: [EngineReading]) -> [WindowChoice.Candidate] {
    zip(rows, surveys).map { row, reading in
      WindowChoice.Candidate(
        box: row.box, score: row.score, digits: row.digits, value: reading.text, confidence: reading.confidence)
    }
  }

  /// A blood-pressure monitor's value as the host reads it, less its display grown down from the
  /// systolic row when told the kind: the three lines among `rows` (``WindowChoice/bloodPressureLines(_:sure:fields:)``,
  /// sure when not `told`; not told and seeing two lines, the new rows found for the kind
  /// surveyed too), read in full, leading zeros and points dropped, joined; with the box around them and
  /// their digits. Nil when no lines make a blood pressure or their box is most of the photo.
  static func monitor(
    in photo: VisionImage, rows: [VisionImage.DigitRow], images: [VisionImage], surveys: [EngineReading], told: Bool,
    reader: ReaderPanel, search: FoundRows
  ) throws -> (value: String, box: Rect, digits: Rect)? {
    var (rows, images, surveys) = (rows, images, surveys)
    let found = Self.candidates(rows, surveys)
    var lines = WindowChoice.bloodPressureLines(found, sure: !told)
    if lines == nil && !told && WindowChoice.bloodPressureLines(found, sure: true, fields: 2) != nil {
      let more = search.rows(limit: WindowChoice.rowsRead(for: .bloodPressure))
        .filter { found in !rows.contains { $0.box == found.box } }
      let added = try more.map { try photo.rowCrop($0) }
      rows += more
      images += added
      surveys += try added.map { try reader.survey($0).reading }
      lines = WindowChoice.bloodPressureLines(Self.candidates(rows, surveys), sure: true)
    }
    guard let lines else { return nil }
    let box = Rect(around: lines.map { rows[$0].box })
    guard WindowChoice.isScene(width: photo.width, height: photo.height, best: box) else { return nil }
    let value = try zip(
      lines.map { try reader.read(images[$0], first: surveys[$0]).text }, Plausibility.bloodPressureFields
    )
    .map(Plausibility.bloodPressureField).joined(separator: "/")
    guard Plausibility.allowsBloodPressure(value) else { return nil }
    return (value, box, Rect(around: lines.map { rows[$0].digitBox }))
  }
}

/// One labelled photo of a folder Tools/make-device-photos.py wrote (labels.csv: file, kind,
/// value, box as "x y w h"; Tools/make-cropped-windows.py adds a read set's accept and points),
/// or Tools/make-dial-meters.py (file, value, wheels, ...: a water meter whose window is its
/// wheels', its value their whole number).
struct DevicePhoto {
  var name: String
  var bytes: [UInt8]
  var kind: MeterKind
  /// The value, judged as the read benchmark judges a window (``LabelledImage/isRight(_:)``).
  var value: LabelledImage
  var box: Rect

  static func load(_ folder: URL) throws -> [DevicePhoto] {
    let text = try String(contentsOf: folder.appendingPathComponent("labels.csv"), encoding: .utf8)
    let lines = text.split(separator: "\n")
    let dialMeters = lines.first?.hasPrefix("file,value,wheels") ?? false
    return try lines.dropFirst().map { line in
      let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      let (kind, value, box): (MeterKind, String, String) =
        dialMeters
        ? (.water, String(fields[1].prefix { $0 != "." }), fields[2])
        : (try Self.kind(fields[1], in: folder), fields[2], fields[3])
      let truth = box.split(separator: " ").compactMap { Int32($0) }
      return DevicePhoto(
        name: fields[0], bytes: [UInt8](try Data(contentsOf: folder.appendingPathComponent(fields[0]))),
        kind: kind, value: try Self.judged(value, fields: dialMeters ? [fields[0]] : fields, in: folder),
        box: Rect(x: truth[0], y: truth[1], width: truth[2], height: truth[3]))
    }
  }

  /// `value` judged by the accept and points a cropped read set's line carries in its fifth and
  /// sixth fields (``LabelledImage/init(path:text:accept:points:)``).
  private static func judged(_ value: String, fields: [String], in folder: URL) throws -> LabelledImage {
    do {
      return try LabelledImage(
        path: fields[0], text: value, accept: fields.count > 4 ? fields[4] : "",
        points: fields.count > 5 ? fields[5] : "")
    } catch {
      throw LabelledSet.Invalid(
        description: "\(folder.path)/labels.csv, \(fields[0]): \(error) (Tools/make-cropped-windows.py writes "
          + "these fields)")
    }
  }

  /// A labels.csv kind ("glucose", "blood-pressure").
  private static func kind(_ name: String, in folder: URL) throws -> MeterKind {
    guard let kind = MeterKind(rawValue: name) else {
      throw UnknownKind(name: name, folder: folder.path)
    }
    return kind
  }

  struct UnknownKind: Error, CustomStringConvertible {
    var name: String
    var folder: String
    var description: String {
      "\(folder)/labels.csv names the kind \"\(name)\", which is no meter kind "
        + "(\(MeterKind.allCases.map(\.rawValue).joined(separator: ", "))): write the set again with Tools/make-device-photos.py"
    }
  }
}
