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
  /// The bins' square roots, eight to a vector (the last padded with zeros), and the bins' sum,
  /// for ``likeness(to:)``: a query is compared with every reference of a household.
  private let roots: [SIMD8<Float>]
  private let total: Double

  public init(of image: VisionImage, mode: Mode) throws(VisionError) {
    self.mode = mode
    let count = Int(pm_histogram_size(mode.shim))
    var status = PM_OK
    bins = [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
      status = pm_histogram(image.pointer, mode.shim, buffer.baseAddress)
      initialized = count
    }
    try check(status)
    (roots, total) = Self.roots(of: bins)
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
    (roots, total) = Self.roots(of: bins)
  }

  private static func roots(of bins: [Float]) -> ([SIMD8<Float>], Double) {
    let roots = stride(from: 0, to: bins.count, by: 8).map { start in
      SIMD8<Float>((0..<8).map { start + $0 < bins.count ? bins[start + $0].squareRoot() : 0 })
    }
    return (roots, bins.reduce(0) { $0 + Double($1) })
  }

  /// One minus the Bhattacharyya distance to `other` (same mode) as OpenCV's `compareHist`
  /// computes it, from the square roots kept with each histogram: a dot product in floats, with
  /// no square root per bin and no call into OpenCV (half the time, with 10,000 references to
  /// compare). Within 1e-3 of OpenCV's: the distance's square root magnifies the float sums'
  /// rounding near identical histograms.
  public func likeness(to other: ColourHistogram) -> Double {
    precondition(mode == other.mode, "histograms of different modes do not compare")
    var sum = SIMD8<Float>()
    for index in roots.indices {
      sum += roots[index] * other.roots[index]
    }
    let product = total * other.total
    let scale = abs(product) > Double(Float.ulpOfOne) ? 1 / product.squareRoot() : 1
    return 1 - max(0, 1 - Double(sum.sum()) * scale).squareRoot()
  }

  /// OpenCV's `compareHist` of the two histograms, which must share a mode.
  public func compare(_ other: ColourHistogram, by measure: Measure) -> Double {
    precondition(mode == other.mode, "histograms of different modes do not compare")
    return pm_histogram_compare(bins, other.bins, Int32(bins.count), measure.shim)
  }
}
