import PhotometerProtocol

extension Hello {
  /// The option `name` as a number in `range`, `fallback` when it is not given; a value that is not
  /// such a number (an empty one included) is an error that names the option and what it takes
  /// (`expected`), with which a recognizer refuses its configuration.
  public func number<Value: LosslessStringConvertible & Comparable>(
    _ name: String, in range: ClosedRange<Value>, fallback: Value, expected: String
  ) throws(ErrorReply) -> Value {
    guard let text = options[name] else { return fallback }
    guard let value = Value(text), range.contains(value) else {
      throw ErrorReply(.invalidRequest, "option \(name): \"\(text)\" is not \(expected)")
    }
    return value
  }
}
