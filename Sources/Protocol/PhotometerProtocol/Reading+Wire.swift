import CPhotometerProtocol

extension Image {
  /// The image, or an empty one for an absent field.
  init(_ image: UnsafeMutablePointer<Photometer__V1__Image>?) {
    self = image.map { Image($0.pointee) } ?? Image(data: [])
  }

  init(_ image: Photometer__V1__Image) {
    self.init(data: [UInt8](protobuf: image.data), name: String(protobuf: image.name))
  }

  func encode(in arena: Arena) -> UnsafeMutablePointer<Photometer__V1__Image> {
    arena.message(photometer__v1__image__init) {
      $0.data = arena.bytes(data)
      $0.name = arena.string(name)
    }
  }
}

extension Rect {
  /// A rectangle, or `nil` for an absent or all-zero one (proto3 cannot tell those apart).
  static func decode(_ rect: UnsafeMutablePointer<Photometer__V1__Rect>?) -> Rect? {
    guard let rect = rect?.pointee else {
      return nil
    }
    let value = Rect(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
    return value == Rect(x: 0, y: 0, width: 0, height: 0) ? nil : value
  }

  static func encode(_ rect: Rect?, in arena: Arena) -> UnsafeMutablePointer<Photometer__V1__Rect>? {
    guard let rect else {
      return nil
    }
    return arena.message(photometer__v1__rect__init) {
      $0.x = rect.x
      $0.y = rect.y
      $0.width = rect.width
      $0.height = rect.height
    }
  }
}

extension Dial {
  init(_ dial: Photometer__V1__Dial) throws(WireError) {
    guard let region = Rect.decode(dial.region) else {
      throw .invalid("a dial has no region")
    }
    guard dial.factor.isFinite, dial.factor > 0 else {
      throw .invalid("a dial's factor must be above 0, not \(dial.factor)")
    }
    self.init(region: region, factor: dial.factor, counterClockwise: dial.counter_clockwise != 0)
  }

  func encode(in arena: Arena) -> UnsafeMutablePointer<Photometer__V1__Dial> {
    arena.message(photometer__v1__dial__init) {
      $0.region = Rect.encode(region, in: arena)
      $0.factor = factor
      $0.counter_clockwise = counterClockwise ? 1 : 0
    }
  }
}

extension ReadRequest {
  init(_ request: Photometer__V1__ReadRequest) throws(WireError) {
    self.init(
      image: Image(request.image),
      roi: Rect.decode(request.roi),
      meter: String(protobuf: request.meter),
      digits: request.digits,
      decimals: request.decimals,
      options: try dictionary(request.n_options, request.options),
      save: request.save != 0,
      stream: String(protobuf: request.stream),
      examples: try repeated(request.n_examples, request.examples) { example throws(WireError) in
        Example(
          key: String(protobuf: example.key), value: String(protobuf: example.value),
          crop: [UInt8](protobuf: example.crop))
      },
      dials: try repeated(request.n_dials, request.dials, Dial.init),
      kind: request.kind.rawValue == 0 ? nil : try MeterKind(protobuf: request.kind),
      survey: request.survey != 0,
      foundRow: request.found_row != 0,
      shadows: request.shadows != 0
    )
  }

  func encode(in arena: Arena) -> UnsafeMutablePointer<Photometer__V1__ReadRequest> {
    arena.message(photometer__v1__read_request__init) {
      $0.image = image.encode(in: arena)
      $0.roi = Rect.encode(roi, in: arena)
      $0.meter = arena.string(meter)
      $0.digits = digits
      $0.decimals = decimals
      ($0.n_options, $0.options) = arena.map(options, photometer__v1__read_request__options_entry__init)
      $0.save = save ? 1 : 0
      $0.stream = arena.string(stream)
      ($0.n_examples, $0.examples) = arena.array(examples) { example in
        arena.message(photometer__v1__example__init) {
          $0.key = arena.string(example.key)
          $0.value = arena.string(example.value)
          $0.crop = arena.bytes(example.crop)
        }
      }
      ($0.n_dials, $0.dials) = arena.array(dials) { $0.encode(in: arena) }
      $0.kind = Photometer__V1__MeterKind(rawValue: kind?.wireValue ?? 0)
      $0.survey = survey ? 1 : 0
      $0.found_row = foundRow ? 1 : 0
      $0.shadows = shadows ? 1 : 0
    }
  }
}

extension Symbol {
  init(_ symbol: Photometer__V1__Symbol) throws(WireError) {
    self.init(
      text: String(protobuf: symbol.text),
      confidence: symbol.confidence,
      box: Rect.decode(symbol.box),
      alternatives: try repeated(symbol.n_alternatives, symbol.alternatives) { alternative throws(WireError) in
        Alternative(text: String(protobuf: alternative.text), confidence: alternative.confidence)
      },
      roll: String(protobuf: symbol.rolling_from).isEmpty
        ? nil : WheelRoll(from: String(protobuf: symbol.rolling_from), fraction: symbol.roll)
    )
  }

  func encode(in arena: Arena) -> UnsafeMutablePointer<Photometer__V1__Symbol> {
    arena.message(photometer__v1__symbol__init) {
      $0.text = arena.string(text)
      $0.confidence = confidence
      $0.box = Rect.encode(box, in: arena)
      ($0.n_alternatives, $0.alternatives) = arena.array(alternatives) { alternative in
        arena.message(photometer__v1__alternative__init) {
          $0.text = arena.string(alternative.text)
          $0.confidence = alternative.confidence
        }
      }
      if let roll {
        $0.rolling_from = arena.string(roll.from)
        $0.roll = roll.fraction
      }
    }
  }
}

extension EngineReading {
  init(_ reading: Photometer__V1__EngineReading) throws(WireError) {
    self.init(
      text: String(protobuf: reading.text),
      confidence: reading.confidence,
      symbols: try repeated(reading.n_symbols, reading.symbols, Symbol.init),
      missingExamples: (0..<reading.n_missing_examples).map { String(protobuf: reading.missing_examples[$0]) },
      refinable: reading.refinable != 0
    )
  }

  func encode(in arena: Arena) -> UnsafeMutablePointer<Photometer__V1__EngineReading> {
    arena.message(photometer__v1__engine_reading__init) {
      $0.text = arena.string(text)
      $0.confidence = confidence
      ($0.n_symbols, $0.symbols) = arena.array(symbols) { $0.encode(in: arena) }
      ($0.n_missing_examples, $0.missing_examples) = arena.values(missingExamples.map { Optional(arena.string($0)) })
      $0.refinable = refinable ? 1 : 0
    }
  }
}

extension EngineAnswer {
  init(_ answer: Photometer__V1__EngineAnswer) throws(WireError) {
    let outcome: Result<EngineReading, ErrorReply>
    if let error = answer.error {
      outcome = .failure(ErrorReply(error.pointee))
    } else if let reading = answer.reading {
      outcome = .success(try EngineReading(reading.pointee))
    } else {
      throw .invalid("an EngineAnswer carries neither a reading nor an error")
    }
    self.init(
      plugin: String(protobuf: answer.plugin),
      version: String(protobuf: answer.version),
      outcome: outcome,
      milliseconds: answer.milliseconds,
      voted: answer.voted != 0
    )
  }

  func encode(in arena: Arena) -> UnsafeMutablePointer<Photometer__V1__EngineAnswer> {
    arena.message(photometer__v1__engine_answer__init) {
      $0.plugin = arena.string(plugin)
      $0.version = arena.string(version)
      switch outcome {
      case .success(let reading): $0.reading = reading.encode(in: arena)
      case .failure(let error): $0.error = error.encode(in: arena)
      }
      $0.milliseconds = milliseconds
      $0.voted = voted ? 1 : 0
    }
  }
}

extension ReadResult {
  init(_ result: Photometer__V1__ReadResult) throws(WireError) {
    self.init(
      value: String(protobuf: result.value),
      confidence: result.confidence,
      engines: try repeated(result.n_engines, result.engines, EngineAnswer.init),
      flags: (0..<result.n_flags).map { ReadFlag(rawValue: String(protobuf: result.flags[$0])) },
      summary: String(protobuf: result.summary),
      crop: result.crop.map { Image($0) },
      digits: try repeated(result.n_digits, result.digits, Symbol.init),
      unrepairedValue: String(protobuf: result.unrepaired_value),
      meter: String(protobuf: result.meter),
      readingID: result.reading_id,
      frames: result.frames,
      isFinal: result.final != 0,
      dials: try repeated(result.n_dials, result.dials, Symbol.init),
      windows: try repeated(result.n_windows, result.windows) { window throws(WireError) in
        guard let box = Rect.decode(window.box) else { throw .invalid("a window has no box") }
        return Window(
          box: box, value: String(protobuf: window.value), confidence: window.confidence,
          digits: Rect.decode(window.digits))
      }
    )
  }

  func encode(in arena: Arena) -> UnsafeMutablePointer<Photometer__V1__ReadResult> {
    arena.message(photometer__v1__read_result__init) {
      $0.value = arena.string(value)
      $0.confidence = confidence
      ($0.n_engines, $0.engines) = arena.array(engines) { $0.encode(in: arena) }
      ($0.n_flags, $0.flags) = arena.values(flags.map { Optional(arena.string($0.rawValue)) })
      $0.summary = arena.string(summary)
      $0.crop = crop?.encode(in: arena)
      ($0.n_digits, $0.digits) = arena.array(digits) { $0.encode(in: arena) }
      $0.unrepaired_value = arena.string(unrepairedValue)
      $0.meter = arena.string(meter)
      $0.reading_id = readingID
      $0.frames = frames
      $0.final = isFinal ? 1 : 0
      ($0.n_dials, $0.dials) = arena.array(dials) { $0.encode(in: arena) }
      ($0.n_windows, $0.windows) = arena.array(windows) { window in
        arena.message(photometer__v1__window__init) {
          $0.box = Rect.encode(window.box, in: arena)
          $0.value = arena.string(window.value)
          $0.confidence = window.confidence
          $0.digits = Rect.encode(window.digits, in: arena)
        }
      }
    }
  }
}
