import CPhotometerProtocol

extension MeterKind {
  init(protobuf kind: Photometer__V1__MeterKind) throws(WireError) {
    guard let known = MeterKind(wireValue: kind.rawValue) else {
      throw .invalid("meter kind \(kind.rawValue) is not one this peer knows")
    }
    self = known
  }
}

extension Meter {
  init(_ meter: Photometer__V1__Meter) throws(WireError) {
    let kind = meter.kind.rawValue == 0 ? .other : try MeterKind(protobuf: meter.kind)
    self.init(
      id: Int64(bitPattern: meter.id),
      name: String(protobuf: meter.name),
      kind: kind,
      unit: String(protobuf: meter.unit),
      createdAt: meter.created_at_ms,
      roi: Rect.decode(meter.roi),
      digits: Int(meter.digits),
      decimals: Int(meter.decimals),
      countsUp: meter.counts_up != 0,
      maxRatePerHour: meter.max_rate_per_hour > 0 ? meter.max_rate_per_hour : nil,
      range: meter.has_range != 0 && meter.min_value <= meter.max_value ? meter.min_value...meter.max_value : nil,
      notes: String(protobuf: meter.notes),
      references: try repeated(meter.n_references, meter.references) { photo throws(WireError) in
        ReferencePhoto(
          sha256: String(protobuf: photo.sha256), width: Int(photo.width), height: Int(photo.height),
          bytes: Int(clamping: photo.bytes), image: photo.image.map { Image($0) })
      },
      readingCount: Int(clamping: meter.reading_count),
      dials: try repeated(meter.n_dials, meter.dials, Dial.init),
      extended: meter.extended != 0
    )
  }

  func encode(in arena: Arena) -> UnsafeMutablePointer<Photometer__V1__Meter> {
    arena.message(photometer__v1__meter__init) {
      $0.id = UInt64(bitPattern: id)
      $0.name = arena.string(name)
      $0.kind = Photometer__V1__MeterKind(rawValue: kind.wireValue)
      $0.unit = arena.string(unit)
      $0.created_at_ms = createdAt
      $0.roi = Rect.encode(roi, in: arena)
      $0.digits = UInt32(clamping: digits)
      $0.decimals = UInt32(clamping: decimals)
      $0.counts_up = countsUp ? 1 : 0
      $0.max_rate_per_hour = maxRatePerHour ?? 0
      $0.has_range = range == nil ? 0 : 1
      $0.min_value = range?.lowerBound ?? 0
      $0.max_value = range?.upperBound ?? 0
      $0.notes = arena.string(notes)
      ($0.n_references, $0.references) = arena.array(references) { photo in
        arena.message(photometer__v1__reference_photo__init) {
          $0.sha256 = arena.string(photo.sha256)
          $0.width = UInt32(clamping: photo.width)
          $0.height = UInt32(clamping: photo.height)
          $0.bytes = UInt64(clamping: photo.bytes)
          $0.image = photo.image?.encode(in: arena)
        }
      }
      $0.reading_count = UInt64(clamping: readingCount)
      ($0.n_dials, $0.dials) = arena.array(dials) { $0.encode(in: arena) }
      $0.extended = extended ? 1 : 0
    }
  }
}

extension StoredReading {
  init(_ reading: Photometer__V1__StoredReading) throws(WireError) {
    self.init(
      id: Int64(bitPattern: reading.id),
      meter: String(protobuf: reading.meter),
      value: String(protobuf: reading.value),
      numeric: reading.numeric,
      unit: String(protobuf: reading.unit),
      takenAt: reading.taken_at_ms,
      recordedAt: reading.recorded_at_ms,
      source: ReadingSource(wireValue: reading.source.rawValue) ?? .manual,
      confidence: reading.confidence > 0 ? reading.confidence : nil,
      verified: reading.verified != 0,
      crop: [UInt8](protobuf: reading.crop),
      engines: try repeated(reading.n_engines, reading.engines, EngineAnswer.init)
    )
    displayValue = String(protobuf: reading.display_value)
    displayUnit = String(protobuf: reading.display_unit)
    votedValue = String(protobuf: reading.voted_value)
    forced = reading.forced != 0
  }

  func encode(in arena: Arena) -> UnsafeMutablePointer<Photometer__V1__StoredReading> {
    arena.message(photometer__v1__stored_reading__init) {
      $0.id = UInt64(bitPattern: id)
      $0.meter = arena.string(meter)
      $0.value = arena.string(value)
      $0.numeric = numeric
      $0.unit = arena.string(unit)
      $0.taken_at_ms = takenAt
      $0.recorded_at_ms = recordedAt
      $0.source = Photometer__V1__ReadingSource(rawValue: source.wireValue)
      $0.confidence = confidence ?? 0
      $0.verified = verified ? 1 : 0
      $0.crop = arena.bytes(crop)
      ($0.n_engines, $0.engines) = arena.array(engines) { $0.encode(in: arena) }
      $0.display_value = arena.string(displayValue)
      $0.display_unit = arena.string(displayUnit)
      $0.voted_value = arena.string(votedValue)
      $0.forced = forced ? 1 : 0
    }
  }
}

extension AddReadingRequest {
  init(_ request: Photometer__V1__AddReading) throws(WireError) {
    self.init(
      meter: String(protobuf: request.meter),
      value: String(protobuf: request.value),
      unit: String(protobuf: request.unit),
      takenAt: request.taken_at_case == PHOTOMETER__V1__ADD_READING__TAKEN_AT_TAKEN_AT_MS ? request.taken_at_ms : nil,
      photo: request.photo.map { Image($0) },
      source: ReadingSource(wireValue: request.source.rawValue) ?? .manual,
      confidence: request.confidence > 0 ? request.confidence : nil,
      engines: try repeated(request.n_engines, request.engines, EngineAnswer.init),
      crop: [UInt8](protobuf: request.crop),
      force: request.force != 0
    )
  }

  func encode(in arena: Arena) -> UnsafeMutablePointer<Photometer__V1__AddReading> {
    arena.message(photometer__v1__add_reading__init) {
      $0.meter = arena.string(meter)
      $0.value = arena.string(value)
      $0.unit = arena.string(unit)
      if let takenAt {
        $0.taken_at_case = PHOTOMETER__V1__ADD_READING__TAKEN_AT_TAKEN_AT_MS
        $0.taken_at_ms = takenAt
      }
      $0.photo = photo?.encode(in: arena)
      $0.source = Photometer__V1__ReadingSource(rawValue: source.wireValue)
      $0.confidence = confidence ?? 0
      ($0.n_engines, $0.engines) = arena.array(engines) { $0.encode(in: arena) }
      $0.crop = arena.bytes(crop)
      $0.force = force ? 1 : 0
    }
  }
}

extension Message {
  /// The store's messages from their C form, or `nil` for a body that is not one of them.
  static func storeMessage(_ envelope: Photometer__V1__Envelope) throws(WireError) -> Message? {
    switch envelope.body_case {
    case PHOTOMETER__V1__ENVELOPE__BODY_ADD_METER:
      let request = envelope.add_meter.pointee
      guard let meter = request.meter else { throw .invalid("AddMeter has no meter") }
      return .addMeter(
        AddMeterRequest(
          meter: try Meter(meter.pointee),
          references: try repeated(request.n_references, request.references) { image throws(WireError) in
            Image(image)
          }))
    case PHOTOMETER__V1__ENVELOPE__BODY_GET_METER:
      let request = envelope.get_meter.pointee
      return .getMeter(name: String(protobuf: request.name), includePhotos: request.include_photos != 0)
    case PHOTOMETER__V1__ENVELOPE__BODY_LIST_METERS:
      return .listMeters
    case PHOTOMETER__V1__ENVELOPE__BODY_EDIT_METER:
      let request = envelope.edit_meter.pointee
      guard let changes = request.changes else { throw .invalid("EditMeter has no changes") }
      return .editMeter(
        EditMeterRequest(
          name: String(protobuf: request.name),
          changes: try Meter(changes.pointee),
          fields: (0..<request.n_fields).map { String(protobuf: request.fields[$0]) },
          addReferences: try repeated(request.n_add_references, request.add_references) { image throws(WireError) in
            Image(image)
          }))
    case PHOTOMETER__V1__ENVELOPE__BODY_REMOVE_METER:
      let request = envelope.remove_meter.pointee
      return .removeMeter(name: String(protobuf: request.name), withReadings: request.with_readings != 0)
    case PHOTOMETER__V1__ENVELOPE__BODY_ADD_READING:
      return .addReading(try AddReadingRequest(envelope.add_reading.pointee))
    case PHOTOMETER__V1__ENVELOPE__BODY_CONFIRM_READING:
      let request = envelope.confirm_reading.pointee
      return .confirmReading(id: Int64(bitPattern: request.id), value: String(protobuf: request.value))
    case PHOTOMETER__V1__ENVELOPE__BODY_DELETE_READING:
      return .deleteReading(id: Int64(bitPattern: envelope.delete_reading.pointee.id))
    case PHOTOMETER__V1__ENVELOPE__BODY_GET_READING:
      let request = envelope.get_reading.pointee
      return .getReading(id: Int64(bitPattern: request.id), withCrop: request.with_crop != 0)
    case PHOTOMETER__V1__ENVELOPE__BODY_LIST_READINGS:
      let request = envelope.list_readings.pointee
      return .listReadings(
        ListReadingsRequest(
          meter: String(protobuf: request.meter), from: request.from_ms != 0 ? request.from_ms : nil,
          to: request.to_ms != 0 ? request.to_ms : nil, unit: String(protobuf: request.unit),
          withCrops: request.with_crops != 0, limit: request.limit != 0 ? Int(request.limit) : nil))
    case PHOTOMETER__V1__ENVELOPE__BODY_METER_INFO:
      guard let meter = envelope.meter_info.pointee.meter else { throw .invalid("MeterInfo has no meter") }
      return .meterInfo(try Meter(meter.pointee))
    case PHOTOMETER__V1__ENVELOPE__BODY_METER_LIST:
      let list = envelope.meter_list.pointee
      return .meterList(try repeated(list.n_meters, list.meters, Meter.init))
    case PHOTOMETER__V1__ENVELOPE__BODY_METER_REMOVED:
      let removed = envelope.meter_removed.pointee
      return .meterRemoved(
        name: String(protobuf: removed.name), readingsRemoved: Int(clamping: removed.readings_removed))
    case PHOTOMETER__V1__ENVELOPE__BODY_READING_INFO:
      guard let reading = envelope.reading_info.pointee.reading else { throw .invalid("ReadingInfo has no reading") }
      return .readingInfo(try StoredReading(reading.pointee))
    case PHOTOMETER__V1__ENVELOPE__BODY_READING_LIST:
      let list = envelope.reading_list.pointee
      return .readingList(try repeated(list.n_readings, list.readings, StoredReading.init))
    case PHOTOMETER__V1__ENVELOPE__BODY_READING_DELETED:
      return .readingDeleted(id: Int64(bitPattern: envelope.reading_deleted.pointee.id))
    default:
      return nil
    }
  }
}

extension Message {
  /// Fills in `envelope` for the store's messages; returns false for any other message.
  func fillStoreMessage(_ envelope: inout Photometer__V1__Envelope, arena: Arena) -> Bool {
    let images = { (images: [Image]) in arena.array(images) { $0.encode(in: arena) } }
    switch self {
    case .addMeter(let request):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_ADD_METER
      envelope.add_meter = arena.message(photometer__v1__add_meter__init) {
        $0.meter = request.meter.encode(in: arena)
        ($0.n_references, $0.references) = images(request.references)
      }
    case .getMeter(let name, let includePhotos):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_GET_METER
      envelope.get_meter = arena.message(photometer__v1__get_meter__init) {
        $0.name = arena.string(name)
        $0.include_photos = includePhotos ? 1 : 0
      }
    case .listMeters:
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_LIST_METERS
      envelope.list_meters = arena.message(photometer__v1__list_meters__init) { _ in }
    case .editMeter(let request):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_EDIT_METER
      envelope.edit_meter = arena.message(photometer__v1__edit_meter__init) {
        $0.name = arena.string(request.name)
        $0.changes = request.changes.encode(in: arena)
        ($0.n_fields, $0.fields) = arena.values(request.fields.map { Optional(arena.string($0)) })
        ($0.n_add_references, $0.add_references) = images(request.addReferences)
      }
    case .removeMeter(let name, let withReadings):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_REMOVE_METER
      envelope.remove_meter = arena.message(photometer__v1__remove_meter__init) {
        $0.name = arena.string(name)
        $0.with_readings = withReadings ? 1 : 0
      }
    case .addReading(let request):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_ADD_READING
      envelope.add_reading = request.encode(in: arena)
    case .confirmReading(let id, let value):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_CONFIRM_READING
      envelope.confirm_reading = arena.message(photometer__v1__confirm_reading__init) {
        $0.id = UInt64(bitPattern: id)
        $0.value = arena.string(value)
      }
    case .deleteReading(let id):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_DELETE_READING
      envelope.delete_reading = arena.message(photometer__v1__delete_reading__init) { $0.id = UInt64(bitPattern: id) }
    case .getReading(let id, let withCrop):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_GET_READING
      envelope.get_reading = arena.message(photometer__v1__get_reading__init) {
        $0.id = UInt64(bitPattern: id)
        $0.with_crop = withCrop ? 1 : 0
      }
    case .listReadings(let request):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_LIST_READINGS
      envelope.list_readings = arena.message(photometer__v1__list_readings__init) {
        $0.meter = arena.string(request.meter)
        $0.from_ms = request.from ?? 0
        $0.to_ms = request.to ?? 0
        $0.unit = arena.string(request.unit)
        $0.with_crops = request.withCrops ? 1 : 0
        $0.limit = request.limit.map { UInt32(clamping: $0) } ?? 0
      }
    case .meterInfo(let meter):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_METER_INFO
      envelope.meter_info = arena.message(photometer__v1__meter_info__init) { $0.meter = meter.encode(in: arena) }
    case .meterList(let meters):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_METER_LIST
      envelope.meter_list = arena.message(photometer__v1__meter_list__init) { list in
        (list.n_meters, list.meters) = arena.array(meters) { $0.encode(in: arena) }
      }
    case .meterRemoved(let name, let readingsRemoved):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_METER_REMOVED
      envelope.meter_removed = arena.message(photometer__v1__meter_removed__init) {
        $0.name = arena.string(name)
        $0.readings_removed = UInt64(clamping: readingsRemoved)
      }
    case .readingInfo(let reading):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_READING_INFO
      envelope.reading_info = arena.message(photometer__v1__reading_info__init) {
        $0.reading = reading.encode(in: arena)
      }
    case .readingList(let readings):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_READING_LIST
      envelope.reading_list = arena.message(photometer__v1__reading_list__init) { list in
        (list.n_readings, list.readings) = arena.array(readings) { $0.encode(in: arena) }
      }
    case .readingDeleted(let id):
      envelope.body_case = PHOTOMETER__V1__ENVELOPE__BODY_READING_DELETED
      envelope.reading_deleted = arena.message(photometer__v1__reading_deleted__init) {
        $0.id = UInt64(bitPattern: id)
      }
    default:
      return false
    }
    return true
  }
}
