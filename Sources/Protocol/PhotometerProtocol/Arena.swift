import CPhotometerProtocol

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// C memory for one message while it is packed: every block is freed with the arena.
///
/// The protobuf-c structs hold raw pointers to strings, bytes and sub-messages; the arena owns all
/// of them so that building a message needs no manual frees and nothing outlives the packing.
final class Arena {
  private var blocks: [UnsafeMutableRawPointer] = []

  deinit {
    for block in blocks {
      free(block)
    }
  }

  /// Zeroed memory for `count` values of `type`.
  func allocate<T>(_ type: T.Type, count: Int = 1) -> UnsafeMutablePointer<T> {
    guard let block = calloc(max(count, 1), MemoryLayout<T>.stride) else {
      fatalError("out of memory allocating \(count) x \(T.self)")
    }
    blocks.append(block)
    return block.bindMemory(to: T.self, capacity: max(count, 1))
  }

  /// A new C message, set up by the generated `init` function and then filled in.
  func message<T>(_ initialize: (UnsafeMutablePointer<T>) -> Void, _ fill: (inout T) -> Void) -> UnsafeMutablePointer<T>
  {
    let pointer = allocate(T.self)
    initialize(pointer)
    fill(&pointer.pointee)
    return pointer
  }

  /// A NUL-terminated copy of `string`.
  func string(_ string: String) -> UnsafeMutablePointer<CChar> {
    let utf8 = Array(string.utf8)
    let pointer = allocate(CChar.self, count: utf8.count + 1)
    utf8.withUnsafeBytes { source in
      UnsafeMutableRawPointer(pointer).copyMemory(from: source.baseAddress!, byteCount: utf8.count)
    }
    return pointer
  }

  /// A copy of `bytes` as protobuf-c binary data.
  func bytes(_ bytes: [UInt8]) -> ProtobufCBinaryData {
    guard !bytes.isEmpty else {
      return ProtobufCBinaryData(len: 0, data: nil)
    }
    let pointer = allocate(UInt8.self, count: bytes.count)
    pointer.update(from: bytes, count: bytes.count)
    return ProtobufCBinaryData(len: bytes.count, data: pointer)
  }

  /// An array of pointers to C messages made from `items`, with its count.
  func array<Item, T>(
    _ items: [Item],
    _ make: (Item) -> UnsafeMutablePointer<T>
  ) -> (count: Int, pointer: UnsafeMutablePointer<UnsafeMutablePointer<T>?>?) {
    guard !items.isEmpty else {
      return (0, nil)
    }
    let pointer = allocate(UnsafeMutablePointer<T>?.self, count: items.count)
    for (index, item) in items.enumerated() {
      pointer[index] = make(item)
    }
    return (items.count, pointer)
  }

  /// A plain C array holding `values`.
  func values<T>(_ values: [T]) -> (count: Int, pointer: UnsafeMutablePointer<T>?) {
    guard !values.isEmpty else {
      return (0, nil)
    }
    let pointer = allocate(T.self, count: values.count)
    pointer.update(from: values, count: values.count)
    return (values.count, pointer)
  }
}

// MARK: Reading C values

extension String {
  /// The Swift string for a protobuf-c string field, which is never NULL once unpacked.
  init(protobuf pointer: UnsafePointer<CChar>?) {
    self = pointer.map { String(cString: $0) } ?? ""
  }
}

extension Array where Element == UInt8 {
  init(protobuf data: ProtobufCBinaryData) {
    guard let bytes = data.data, data.len > 0 else {
      self = []
      return
    }
    self = Array(UnsafeBufferPointer(start: bytes, count: data.len))
  }
}

/// The elements of a protobuf-c repeated message field, converted.
func repeated<T, Element>(
  _ count: Int,
  _ pointer: UnsafeMutablePointer<UnsafeMutablePointer<T>?>?,
  _ convert: (T) throws(WireError) -> Element
) throws(WireError) -> [Element] {
  guard let pointer, count > 0 else {
    return []
  }
  var result: [Element] = []
  result.reserveCapacity(count)
  for index in 0..<count {
    guard let item = pointer[index] else {
      throw WireError.undecodable
    }
    result.append(try convert(item.pointee))
  }
  return result
}
