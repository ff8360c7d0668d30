import CPhotometerVision
import Foundation
import PhotometerProtocol

/// A pointer dial's reading: where its pointer stands on the 0-9 scale.
public struct PointerDial: Hashable, Sendable {
  /// Where a dial is in a photo and which way its numbers run.
  public struct Placement: Hashable, Sendable {
    /// The box drawn around the dial (the ring, perhaps its numbers), in pixels of the photo.
    public var region: Rect
    /// The numbers run anticlockwise; 0 is at the top either way.
    public var counterClockwise: Bool

    public init(region: Rect, counterClockwise: Bool = false) {
      self.region = region
      self.counterClockwise = counterClockwise
    }
  }

  /// In [0, 10): 4.5 is half-way from 4 to 5, whichever way the numbers run.
  public var value: Double
  /// 0 to 1: low when another mark looks as much like a pointer, or the pointer hardly shows.
  public var confidence: Double

  /// Reads one meter's dials, in order. A photo turns a meter's dials alike, so how far they are
  /// turned is measured on all of them together: pass a meter's dials in one call, not one by one.
  public static func read(_ dials: [Placement], in image: VisionImage) throws(VisionError) -> [PointerDial] {
    let regions = dials.map {
      pm_dial_region(
        x: $0.region.x, y: $0.region.y, width: $0.region.width, height: $0.region.height,
        counter_clockwise: $0.counterClockwise ? 1 : 0)
    }
    var readings = [pm_dial_reading](repeating: pm_dial_reading(), count: dials.count)
    try check(pm_dials_read(image.pointer, regions, Int32(regions.count), &readings))
    return readings.map { PointerDial(value: $0.value, confidence: $0.confidence) }
  }

  /// The homography from a meter's reference photo to `image` found by the meter's dials, as
  /// `dials` lie in the reference: the similarity that puts them on circles found in `image`
  /// (`pm_dials_locate`), refined with the whole face when the `reference` photo is given
  /// (`pm_image_align`), which takes the tilt out, kept only if it moves no dial by more than a
  /// third of its radius. For a photo the identify plugins cannot locate the meter in (blurred, a
  /// plain face with few keypoints). `expectedScale` is the photo's pixels per reference pixel as
  /// their sizes say. Nil when fewer than three dials (two of two) are found where the others put
  /// them, or when not all are and the face does not agree (``VisionImage/faceCorrelation``):
  /// three circles in a row are found in many photos of other things.
  public static func locate(
    _ dials: [Rect], in image: VisionImage, reference: VisionImage? = nil, expectedScale: Double = 1
  ) throws(VisionError) -> [Double]? {
    let circles = dials.map { region in
      pm_dial_circle(
        x: Double(region.x) + Double(region.width) / 2, y: Double(region.y) + Double(region.height) / 2,
        radius: Double(min(region.width, region.height)) / 2)
    }
    var similarity = [Double](repeating: 0, count: 9)
    var matched: Int32 = 0
    try check(pm_dials_locate(image.pointer, circles, Int32(circles.count), expectedScale, &similarity, &matched))
    guard matched > 0 else { return nil }
    let all = Int(matched) == circles.count
    guard let reference else { return all ? similarity : nil }
    let refined = try image.homography(
      aligning: reference, from: similarity, least: all ? 0 : VisionImage.faceCorrelation)
    if let refined, agree(similarity, refined, on: circles, within: 1.0 / 3) {
      return refined
    }
    return all ? similarity : nil
  }

  /// How well a location puts a meter's dials where they are in a photo
  /// (``fit(of:dials:reference:in:)``).
  public struct LocationFit: Sendable {
    /// The dials found within ``PointerDial/leastShift`` of their radius of where it puts them.
    public var placed: Int
    /// Their shifts summed, in shares of their radii (among locations placing as many, the least
    /// is the best).
    public var shift: Double
    /// The location corrected by the similarity that most of the found dials' shifts agree on
    /// (within ``PointerDial/shiftResidual`` of their radii), refitted on those; nil when no two
    /// found dials agree on one.
    public var corrected: [Double]?
  }

  /// How well `homography` (row-major 3 x 3, from `reference`'s pixels to `image`'s) puts the
  /// meter's `dials` (their boxes in `reference`): each box is found in `image` straightened
  /// through it, within half the box's side (`pm_dials_shifts`, normalised cross-correlation of at
  /// least ``leastScore``), and its shift measured.
  public static func fit(
    of homography: [Double], dials: [Rect], reference: VisionImage, in image: VisionImage
  ) throws(VisionError) -> LocationFit {
    guard homography.count == 9 else {
      throw VisionError(kind: .badArgument, description: "a homography has 9 entries, not \(homography.count)")
    }
    let regions = dials.map {
      pm_dial_region(x: $0.x, y: $0.y, width: $0.width, height: $0.height, counter_clockwise: 0)
    }
    var shifts = [pm_dial_shift](repeating: pm_dial_shift(), count: dials.count)
    try check(pm_dials_shifts(reference.pointer, image.pointer, homography, regions, Int32(regions.count), &shifts))
    let found = zip(dials, shifts).filter { $0.1.score >= leastScore }.map { dial, shift in
      let centre = (x: Double(dial.x) + Double(dial.width) / 2, y: Double(dial.y) + Double(dial.height) / 2)
      return DialShift(
        from: centre, to: (x: centre.x + shift.dx, y: centre.y + shift.dy),
        radius: Double(min(dial.width, dial.height)) / 2)
    }
    let near = found.filter { $0.length <= leastShift }
    let corrected = Similarity(agreedOn: found).map { composed(homography, $0.matrix) }
    return LocationFit(placed: near.count, shift: near.map(\.length).reduce(0, +), corrected: corrected)
  }

  /// `homography` (row-major 3 x 3, from `reference`'s pixels to `photo`'s) checked by the meter's
  /// `dials` (``fit(of:dials:reference:in:)``): where it leaves a dial more than ``leastShift`` of
  /// its radius from where the dial is found (or not found), the similarity most dials' shifts
  /// agree on and the face's refinement (ECC) of both are tried, and the one placing the most dials
  /// (as many: the nearer) is taken if it places more than `homography` does. A location a dial or
  /// a wheel over (dials and wheels look alike) is so put back; one that places as many is left
  /// alone, as refining a location flips as many finest digits as it mends (docs/recognizers.md,
  /// R144 and R147).
  public static func checked(_ homography: [Double], dials: [Rect], reference: VisionImage, in photo: VisionImage)
    -> [Double]
  {
    guard let placement = try? fit(of: homography, dials: dials, reference: reference, in: photo),
      placement.placed < dials.count
    else { return homography }
    var candidates = [placement.corrected].compactMap { $0 }
    candidates += ([homography] + candidates).compactMap {
      try? photo.homography(aligning: reference, from: $0, least: VisionImage.faceCorrelation)
    }
    var best: (homography: [Double], placement: LocationFit)?
    for candidate in candidates {
      guard let tried = try? fit(of: candidate, dials: dials, reference: reference, in: photo)
      else { continue }
      if let chosen = best, (tried.placed, -tried.shift) <= (chosen.placement.placed, -chosen.placement.shift) {
        continue
      }
      best = (candidate, tried)
    }
    guard let best, best.placement.placed > placement.placed else { return homography }
    return best.homography
  }

  /// A dial is found where its box matches at least this well (normalised cross-correlation).
  public static let leastScore = 0.4
  /// A dial stands where a location puts it when found within this share of its radius.
  public static let leastShift = 0.25
  /// A found dial agrees with a similarity that puts it within this share of its radius.
  public static let shiftResidual = 0.15

  /// A dial's centre where a location puts it (`from`) and where it is found (`to`).
  struct DialShift {
    var from: (x: Double, y: Double)
    var to: (x: Double, y: Double)
    var radius: Double

    /// The shift as a share of the radius.
    var length: Double { hypot(to.x - from.x, to.y - from.y) / radius }
  }

  /// A similarity of the plane (turn, scale, shift): z -> a z + b, as complex numbers.
  struct Similarity {
    var a: (re: Double, im: Double)
    var b: (re: Double, im: Double)

    /// The least-squares similarity taking each pair's first point to its second; nil when the
    /// first points coincide.
    init?(fitting pairs: [((x: Double, y: Double), (x: Double, y: Double))]) {
      let count = Double(pairs.count)
      let from = (x: pairs.map(\.0.x).reduce(0, +) / count, y: pairs.map(\.0.y).reduce(0, +) / count)
      let to = (x: pairs.map(\.1.x).reduce(0, +) / count, y: pairs.map(\.1.y).reduce(0, +) / count)
      var re = 0.0, im = 0.0, norm = 0.0
      for (p, q) in pairs {
        let (zx, zy, wx, wy) = (p.x - from.x, p.y - from.y, q.x - to.x, q.y - to.y)
        // w times the conjugate of z.
        re += wx * zx + wy * zy
        im += wy * zx - wx * zy
        norm += zx * zx + zy * zy
      }
      guard norm > 1e-9 else { return nil }
      a = (re / norm, im / norm)
      b = (to.x - (a.re * from.x - a.im * from.y), to.y - (a.im * from.x + a.re * from.y))
    }

    /// The similarity that the most of `shifts` agree on: each pair's, the one most dials stand
    /// within ``PointerDial/shiftResidual`` of their radius of, refitted on those; nil when no
    /// pair is followed by a third dial too, or by both of two.
    init?(agreedOn shifts: [DialShift]) {
      var best: [DialShift] = []
      for first in shifts.indices {
        for second in shifts.indices where second > first {
          guard let pair = Similarity(fitting: [shifts[first], shifts[second]].map { ($0.from, $0.to) }) else {
            continue
          }
          let agreeing = shifts.filter { shift in
            let placed = pair.apply(shift.from)
            return hypot(placed.x - shift.to.x, placed.y - shift.to.y) <= PointerDial.shiftResidual * shift.radius
          }
          if agreeing.count > best.count {
            best = agreeing
          }
        }
      }
      guard best.count >= min(3, shifts.count), best.count >= 2 else { return nil }
      self.init(fitting: best.map { ($0.from, $0.to) })
    }

    func apply(_ point: (x: Double, y: Double)) -> (x: Double, y: Double) {
      (a.re * point.x - a.im * point.y + b.re, a.im * point.x + a.re * point.y + b.im)
    }

    /// Row-major 3 x 3.
    var matrix: [Double] { [a.re, -a.im, b.re, a.im, a.re, b.im, 0, 0, 1] }
  }

  /// `first` after `second`: the row-major 3 x 3 product first x second, scaled to end in 1.
  static func composed(_ first: [Double], _ second: [Double]) -> [Double] {
    var product = [Double](repeating: 0, count: 9)
    for row in 0..<3 {
      for column in 0..<3 {
        product[row * 3 + column] = (0..<3).map { first[row * 3 + $0] * second[$0 * 3 + column] }.reduce(0, +)
      }
    }
    return product.map { $0 / product[8] }
  }

  /// Whether homographies `a` and `b` put every circle's centre within `share` of its radius (as
  /// `a` scales it) of each other.
  private static func agree(_ a: [Double], _ b: [Double], on circles: [pm_dial_circle], within share: Double) -> Bool {
    let scale = hypot(a[0], a[3])
    return circles.allSatisfy { circle in
      let (p, q) = (project((circle.x, circle.y), through: a), project((circle.x, circle.y), through: b))
      return hypot(p.x - q.x, p.y - q.y) <= share * circle.radius * scale
    }
  }

  /// Reads a dial alone (its turn in the photo from its own ring only).
  public init(in image: VisionImage, region: Rect, counterClockwise: Bool = false) throws(VisionError) {
    self = try Self.read([Placement(region: region, counterClockwise: counterClockwise)], in: image)[0]
  }

  init(value: Double, confidence: Double) {
    self.value = value
    self.confidence = confidence
  }
}
