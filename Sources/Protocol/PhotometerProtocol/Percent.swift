extension Double {
  /// A confidence or share between 0 and 1 as people read it: 0.734 is "73%".
  public var percentText: String { "\(Int((self * 100).rounded()))%" }
}
