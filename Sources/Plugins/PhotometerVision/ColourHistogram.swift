import CPhotometerVision

/// A colour histogram of a photo, computed once per reference and compared many times.
public struct ColourHistogram: Sendable {
  /// How the histogram is made.
  public enum Mode: String, CaseIterable, Sendable {
    /// HSV hue x saturation, 50 x 60 bins, min-max normalised: the reference application's method,
    /// which works only under identical lighting.
    case seed
    /// Grey-world balanced chromaticity with soft, coarse bins on the whole photo and its quarters,
    /// plus the layout of light and dark: robust to white balance, exposure and near-identical colours.
    case robust

    var shim: pm_histogram_mode { self == .seed ? PM_HISTOGRAM_SEED : PM_HISTOGRAM_ROBUST }
  }

  /// OpenCV's four classic measures.
  public enum Measure: CaseIterable, Sendable {
    case correlation, chiSquare, intersection, bhattacharyya

    /// Correlation and intersection grow with likeness; chi-square and Bhattacharyya shrink.
    public var higherIsBetter: Bool { self == .correlation || self == .intersection }

    var shim: pm_compare_method {
      switch self {
      case .correlation: PM_COMPARE_CORRELATION
      case .chiSquare: PM_COMPARE_CHI_SQUARE
      case .intersection: PM_COMPARE_INTERSECTION
      case .bhattacharyya: PM_COMPARE_BHATTACHARYYA
      }
    }
  }

  public let mode: Mode
  public let bins: [Float]

  public init(of image: VisionImage, mode: Mode) throws(VisionError) {
    self.mode = mode
    let count = Int(pm_histogram_size(mode.shim))
    var status = PM_OK
    bins = [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
      status = pm_histogram(image.pointer, mode.shim, buffer.baseAddress)
      initialized = count
    }
    try check(status)
  }

  /// A histogram computed before (its `bins`, as a cache kept them); the bins must be as many
  /// as the mode makes.
  public init(mode: Mode, bins: [Float]) throws(VisionError) {
    guard bins.count == Int(pm_histogram_size(mode.shim)) else {
      throw VisionError(
        kind: .badArgument,
        description: "a \(mode.rawValue) histogram has \(pm_histogram_size(mode.shim)) bins, not \(bins.count)")
    }
    self.mode = mode
    self.bins = bins
  }

  /// OpenCV's `compareHist` of the two histograms, which must share a mode.
  public func compare(_ other: ColourHistogram, by measure: Measure) -> Double {
    precondition(mode == other.mode, "histograms of different modes do not compare")
    return pm_histogram_compare(bins, other.bins, Int32(bins.count), measure.shim)
  }
}
