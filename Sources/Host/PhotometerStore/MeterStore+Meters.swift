import Foundation
import GRDB
import PhotometerDigest
import PhotometerImages
import PhotometerProtocol

extension MeterStore {
  /// Registers a meter with one or more reference photos.
  public func addMeter(_ meter: Meter, references: [Image]) async throws(StoreError) -> Meter {
    let validated = try validatedRow(meter, createdAt: Self.now)
    try Self.checkDials(meter)
    guard !references.isEmpty else {
      throw .invalid("a meter needs at least one reference photo")
    }
    let photos = try references.map(Self.inspect)
    try Self.checkRegions(of: meter, in: photos.map { ($0.info.width, $0.info.height) })
    return try await write { db in
      var row = validated
      guard try MeterName.meterID(row.name, db: db) == nil else {
        throw StoreError.duplicateMeter(row.name)
      }
      try row.insert(db)
      for photo in photos {
        try Self.insert(photo, meterId: row.id!, db: db)
      }
      try Self.replaceDials(of: row.id!, with: meter.dials, db: db)
      return try Self.meter(row, db: db, includePhotos: false)
    }
  }

  /// Every meter, by name.
  public func meters() async throws(StoreError) -> [Meter] {
    try await read { db in
      try MeterRow.order(Column("name").collating(.nocase)).fetchAll(db).map {
        try Self.meter($0, db: db, includePhotos: false)
      }
    }
  }

  /// The meter named `name` (ignoring case).
  public func meter(named name: String, includePhotos: Bool = false) async throws(StoreError) -> Meter {
    try await read { db in try Self.meter(try Self.row(named: name, db: db), db: db, includePhotos: includePhotos) }
  }

  /// Every meter's reference photos, or only those of the meter `name`, for identification; with
  /// `images` false, without their bytes (the host sends references bare and the images a plugin
  /// asks for, ``referenceImages(_:)``: reading every photo of 1,000 meters for each identify took
  /// it longer than the keypoint plugin's whole answer).
  ///
  /// Every meter's references without their photos are kept between calls until the file
  /// changes (this store's writes or another process's): at 10,000 meters reading them took a
  /// fifth of the host's time of an identify.
  public func references(of name: String? = nil, images: Bool = true) async throws(StoreError) -> [Reference] {
    guard name == nil, !images else {
      return try await readReferences(of: name, images: images)
    }
    return try await household().references
  }

  /// Every meter's references without their photos, and the name plugins keep that list under
  /// (``SHA256Digest/referenceSet(_:)``); read and named once until the file changes.
  public func household() async throws(StoreError) -> (references: [Reference], referenceSet: String) {
    let version = try await version()
    if let kept = keptReferences.withLock({ $0 }), kept.version == version {
      return (kept.references, kept.referenceSet)
    }
    let references = try await readReferences(of: nil, images: false)
    let referenceSet = SHA256Digest.referenceSet(references)
    keptReferences.withLock { $0 = (version, references, referenceSet) }
    return (references, referenceSet)
  }

  private func readReferences(of name: String?, images: Bool) async throws(StoreError) -> [Reference] {
    try await read { db in
      // One meter's rows, or every meter's (no list of 10,000 ids to bind and match). Columns are
      // read by position, only those used: at 10,000 meters, decoding whole meter records took
      // half the host's time of an identify.
      let only = try name.map { try Self.row(named: $0, db: db).id! }
      let filter = only == nil ? "" : "WHERE meterId = ?"
      let arguments = StatementArguments(only.map { [$0] } ?? [])
      var dials: [Int64: [Dial]] = [:]
      func int32(_ row: Row, _ column: Int) -> Int32? {
        (row[column] as Int?).map { Int32(clamping: $0) }
      }
      for row in try Row.fetchAll(
        db,
        sql: """
          SELECT meterId, x, y, width, height, factor, counterClockwise FROM meterDial \(filter)
          ORDER BY meterId, position
          """,
        arguments: arguments)
      {
        let region = Rect(x: int32(row, 1)!, y: int32(row, 2)!, width: int32(row, 3)!, height: int32(row, 4)!)
        dials[row[0], default: []].append(Dial(region: region, factor: row[5], counterClockwise: row[6]))
      }
      var meters: [Int64: (name: String, region: Rect?)] = [:]
      for row in try Row.fetchAll(
        db,
        sql: "SELECT id, name, roiX, roiY, roiWidth, roiHeight FROM meter \(only == nil ? "" : "WHERE id = ?")",
        arguments: arguments)
      {
        let id: Int64 = row[0]
        let window: Rect? =
          if let x = int32(row, 2), let y = int32(row, 3), let width = int32(row, 4), let height = int32(row, 5) {
            Rect(x: x, y: y, width: width, height: height)
          } else { nil }
        meters[id] = (row[1], Self.learntRegion(window, dials: dials[id] ?? []))
      }
      // Without the bytes, the (meterId, sha256) key's index holds all that is read: the table's
      // pages, each mostly a photo, are not. Ordered by meter and then as added, as with them.
      var photos = try Row.fetchAll(
        db,
        sql: """
          SELECT meterId, id, sha256\(images ? ", data" : "") FROM referencePhoto \(filter)
          ORDER BY meterId, \(images ? "id" : "sha256")
          """,
        arguments: arguments
      ).map { row in
        (
          meterId: row[0] as Int64, id: row[1] as Int64, sha256: row[2] as String,
          data: images ? row[3] as Data : Data()
        )
      }
      photos.sort { ($0.meterId, $0.id) < ($1.meterId, $1.id) }
      return photos.compactMap { photo in
        guard let meter = meters[photo.meterId] else { return nil }
        return Reference(
          meter: meter.name, image: Image(data: [UInt8](photo.data)), sha256: photo.sha256, roi: meter.region)
      }
    }
  }

  /// The reference photos whose SHA-256 is among `sha256s`, by SHA-256.
  public func referenceImages(_ sha256s: [String]) async throws(StoreError) -> [String: Image] {
    try await read { db in
      let rows = try ReferencePhotoRow.filter(sha256s.contains(Column("sha256"))).fetchAll(db)
      return Dictionary(
        rows.map { ($0.sha256, Image(data: [UInt8]($0.data))) }, uniquingKeysWith: { first, _ in first })
    }
  }

  /// Changes `fields` of the meter `name` to their values in `changes`, and adds photos.
  public func editMeter(_ request: EditMeterRequest) async throws(StoreError) -> Meter {
    let photos = try request.addReferences.map(Self.inspect)
    let fields = try request.fields.map { (name) throws(StoreError) -> EditMeterRequest.Field in
      guard let field = EditMeterRequest.Field(rawValue: name) else {
        throw .invalid(
          "'\(name)' is not a meter field; use \(EditMeterRequest.Field.allCases.map(\.rawValue).joined(separator: ", "))"
        )
      }
      return field
    }
    return try await write { db in
      let current = try Self.meter(try Self.row(named: request.name, db: db), db: db, includePhotos: false)
      var edited = current
      for field in fields {
        Self.apply(field, from: request.changes, to: &edited)
      }
      var row = try self.validatedRow(edited, createdAt: current.createdAt)
      try Self.checkDials(edited)
      // Regions the edit sets must fit every photo; regions kept must fit the photos it adds.
      let added = photos.map { ($0.info.width, $0.info.height) }
      let sizes =
        fields.contains(.roi) || fields.contains(.dials)
        ? current.references.map { ($0.width, $0.height) } + added : added
      try Self.checkRegions(of: edited, in: sizes)
      row.id = current.id
      if let other = try MeterName.meterID(row.name, db: db), other != current.id {
        throw StoreError.duplicateMeter(row.name)
      }
      try row.update(db)
      for photo in photos {
        try Self.insert(photo, meterId: current.id, db: db)
      }
      if fields.contains(.dials) {
        try Self.replaceDials(of: current.id, with: edited.dials, db: db)
      }
      return try Self.meter(row, db: db, includePhotos: false)
    }
  }

  /// Removes a meter; one with readings only when `withReadings`. Returns how many readings went.
  public func removeMeter(named name: String, withReadings: Bool) async throws(StoreError) -> Int {
    try await write { db in
      let row = try Self.row(named: name, db: db)
      let readings = try ReadingRow.filter(Column("meterId") == row.id).fetchCount(db)
      guard readings == 0 || withReadings else {
        throw StoreError.meterHasReadings(row.name, count: readings)
      }
      try ReadingRow.filter(Column("meterId") == row.id).deleteAll(db)
      try row.delete(db)
      return readings
    }
  }

  // MARK: Rows and meters

  static func row(named name: String, db: Database) throws -> MeterRow {
    guard let id = try MeterName.meterID(name, db: db), let row = try MeterRow.fetchOne(db, key: id) else {
      throw StoreError.meterNotFound(name)
    }
    return row
  }

  /// The part of a reference that is surely the meter, sent to identify plugins as its `roi`: the
  /// box around the digit window and every dial. The keypoint plugin learns the meter around it,
  /// and a water meter's dials, which do not change between photos as its wheels do, are its
  /// best keypoints.
  static func learntRegion(_ window: Rect?, dials: [Dial]) -> Rect? {
    let regions = [window].compactMap { $0 } + dials.map(\.region)
    // In Int: a stored region's far edge may lie past Int32 (add and edit hold regions to the
    // photos, but an import keeps what an older export holds), and the box is held to it.
    guard let left = regions.map({ Int($0.x) }).min(), let top = regions.map({ Int($0.y) }).min(),
      let right = regions.map({ Int($0.x) + Int($0.width) }).max(),
      let bottom = regions.map({ Int($0.y) + Int($0.height) }).max()
    else { return nil }
    return Rect(
      x: Int32(left), y: Int32(top), width: Int32(clamping: right - left), height: Int32(clamping: bottom - top))
  }

  static func region(_ row: MeterRow) -> Rect? {
    guard let x = row.roiX, let y = row.roiY, let width = row.roiWidth, let height = row.roiHeight else { return nil }
    return Rect(x: Int32(x), y: Int32(y), width: Int32(width), height: Int32(height))
  }

  static func meter(_ row: MeterRow, db: Database, includePhotos: Bool) throws -> Meter {
    // The photos' bytes are read only when asked for: listing meters must not load every photo.
    let photos = try Row.fetchAll(
      db,
      sql: """
        SELECT sha256, width, height, length(data) AS bytes\(includePhotos ? ", data" : "")
        FROM referencePhoto WHERE meterId = ? ORDER BY id
        """,
      arguments: [row.id])
    let range = row.minValue.flatMap { low in row.maxValue.map { low...$0 } }
    return Meter(
      id: row.id ?? 0, name: row.name, kind: MeterKind(rawValue: row.kind) ?? .other, unit: row.unit,
      createdAt: row.createdAtMs, roi: region(row), digits: row.digits, decimals: row.decimals,
      countsUp: row.countsUp, maxRatePerHour: row.maxRatePerHour, range: range, notes: row.notes,
      references: photos.map { photo in
        ReferencePhoto(
          sha256: photo["sha256"], width: photo["width"], height: photo["height"], bytes: photo["bytes"],
          image: includePhotos ? Image(data: [UInt8](photo["data"] as Data)) : nil)
      },
      readingCount: try ReadingRow.filter(Column("meterId") == row.id).fetchCount(db),
      dials: try dials(ofMeter: row.id, db: db),
      extended: row.extended
    )
  }

  /// A meter's dials, coarsest first.
  static func dials(ofMeter meterId: Int64?, db: Database) throws -> [Dial] {
    try MeterDialRow.filter(Column("meterId") == meterId).order(Column("position")).fetchAll(db).map(dial)
  }

  static func dial(_ row: MeterDialRow) -> Dial {
    Dial(
      region: Rect(x: Int32(row.x), y: Int32(row.y), width: Int32(row.width), height: Int32(row.height)),
      factor: row.factor, counterClockwise: row.counterClockwise)
  }

  static func replaceDials(of meterId: Int64, with dials: [Dial], db: Database) throws {
    try MeterDialRow.filter(Column("meterId") == meterId).deleteAll(db)
    for (position, dial) in dials.enumerated() {
      var row = MeterDialRow(
        id: nil, meterId: meterId, position: position, x: Int(dial.region.x), y: Int(dial.region.y),
        width: Int(dial.region.width), height: Int(dial.region.height), factor: dial.factor,
        counterClockwise: dial.counterClockwise)
      try row.insert(db)
    }
  }

  /// Dials must each stand a decimal place below the one before, the first one below the last
  /// digit's place (0.1 for a meter with no decimals); where they lie, ``checkRegions(of:in:)``.
  static func checkDials(_ meter: Meter) throws(StoreError) {
    for (index, dial) in meter.dials.enumerated() {
      let expected = Self.dialFactor(decimals: meter.decimals, index: index)
      guard abs(dial.factor / expected - 1) < 1e-6 else {
        throw .invalid(
          "dial \(index + 1) of '\(meter.name)' is x\(dial.factor); with \(meter.decimals) decimals on the wheels the "
            + "dials must be \(meter.dials.indices.map { "x\(Self.dialFactor(decimals: meter.decimals, index: $0))" }.joined(separator: ", ")), coarsest first"
        )
      }
      let region = dial.region
      guard region.x >= 0, region.y >= 0, region.width >= 8, region.height >= 8 else {
        throw .invalid("dial \(index + 1)'s region \(region) must have x, y of 0 or more and sides of 8 pixels or more")
      }
    }
  }

  /// The factor of the dial `index` places below a meter's last wheel (0-based).
  static func dialFactor(decimals: Int, index: Int) -> Double {
    (0...(decimals + index)).reduce(1.0) { factor, _ in factor / 10 }
  }

  private static func apply(_ field: EditMeterRequest.Field, from changes: Meter, to meter: inout Meter) {
    switch field {
    case .name: meter.name = changes.name
    case .kind: meter.kind = changes.kind
    case .unit: meter.unit = changes.unit
    case .roi: meter.roi = changes.roi
    case .digits: meter.digits = changes.digits
    case .decimals: meter.decimals = changes.decimals
    case .countsUp: meter.countsUp = changes.countsUp
    case .maxRatePerHour: meter.maxRatePerHour = changes.maxRatePerHour
    case .range: meter.range = changes.range
    case .notes: meter.notes = changes.notes
    case .dials: meter.dials = changes.dials
    case .extended: meter.extended = changes.extended
    }
  }

  /// The row for `meter`, after checking every setting.
  private func validatedRow(_ meter: Meter, createdAt: Int64) throws(StoreError) -> MeterRow {
    let name = try MeterName.checked(meter.name)
    guard (0...20).contains(meter.digits), (0...10).contains(meter.decimals) else {
      throw .invalid("digits must be 0 to 20 and decimals 0 to 10")
    }
    guard meter.digits == 0 || meter.decimals <= meter.digits else {
      throw .invalid("a meter cannot have more decimals (\(meter.decimals)) than digits (\(meter.digits))")
    }
    if let rate = meter.maxRatePerHour, !(rate.isFinite && rate > 0) {
      throw .invalid("the maximum rate per hour must be a number over 0")
    }
    if let range = meter.range, !(range.lowerBound.isFinite && range.upperBound.isFinite) {
      throw .invalid("the valid range must be two numbers, the lower first")
    }
    if let roi = meter.roi, roi.x < 0 || roi.y < 0 || roi.width <= 0 || roi.height <= 0 {
      throw .invalid("the region \(roi) must have x, y of 0 or more and a width and height over 0")
    }
    return MeterRow(
      id: nil, name: name, kind: meter.kind.rawValue, unit: try Units.normalize(meter.unit, for: meter.kind),
      createdAtMs: createdAt, roiX: meter.roi.map { Int($0.x) }, roiY: meter.roi.map { Int($0.y) },
      roiWidth: meter.roi.map { Int($0.width) }, roiHeight: meter.roi.map { Int($0.height) }, digits: meter.digits,
      decimals: meter.decimals, countsUp: meter.countsUp, maxRatePerHour: meter.maxRatePerHour,
      minValue: meter.range?.lowerBound, maxValue: meter.range?.upperBound, notes: meter.notes,
      extended: meter.extended)
  }

  /// Checks that the digit window and every dial lie inside each photo of `sizes` (width,
  /// height): regions are in a reference photo's pixels, and one past its edge reads nothing.
  static func checkRegions(of meter: Meter, in sizes: [(width: Int, height: Int)]) throws(StoreError) {
    let regions =
      [meter.roi.map { ("the region", $0) }].compactMap { $0 }
      + meter.dials.enumerated().map { ("dial \($0.offset + 1)'s region", $0.element.region) }
    for (what, region) in regions {
      for size in sizes
      where Int(region.x) + Int(region.width) > size.width || Int(region.y) + Int(region.height) > size.height {
        throw .invalid(
          "\(what) \(region) does not fit in the \(size.width)x\(size.height) reference photo; "
            + "give one inside it (`photometer meter preview` draws the regions)")
      }
    }
  }

  // MARK: Photos

  struct InspectedPhoto {
    var data: [UInt8]
    var info: ImageInfo
  }

  static func inspect(_ image: Image) throws(StoreError) -> InspectedPhoto {
    do {
      return InspectedPhoto(data: image.data, info: try ImageInfo.inspect(image.data))
    } catch {
      throw .badImage(image.name.isEmpty ? "\(error)" : "\(image.name): \(error)")
    }
  }

  private static func insert(_ photo: InspectedPhoto, meterId: Int64, db: Database) throws {
    let digest = SHA256Digest.hex(photo.data)
    guard try ReferencePhotoRow.filter(Column("meterId") == meterId && Column("sha256") == digest).fetchCount(db) == 0
    else { return }
    var row = ReferencePhotoRow(
      id: nil, meterId: meterId, sha256: digest, data: Data(photo.data), width: photo.info.width,
      height: photo.info.height,
      addedAtMs: now)
    try row.insert(db)
  }
}
