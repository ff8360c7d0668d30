// A meter found in a photo by its dials: circles found in the photo (Hough's gradient method, on
// the photo scaled down) are matched to the reference's dials, and the similarity transform that
// puts the most of them where circles of their size are is refitted on all it put there. A
// blurred photo of a plain dial face has too few keypoints to be located by them; its dials are
// still circles. A similarity, not a homography: a meter's dials often stand in a row, through
// which a homography is not determined. `pm_image_align` then refines it to a homography from the
// whole face (Evangelidis and Psarakis's ECC), which takes the tilt out of the digit window too.
#include "vision_internal.hpp"

#include <opencv2/calib3d.hpp>
#include <opencv2/video/tracking.hpp>

#include <cmath>
#include <complex>

using namespace pm;

namespace {

// The photo is searched at most `workingSide` pixels a side, and no larger than makes the
// smallest dial about `workingRadius` pixels across its radius: Hough's time grows with both.
constexpr int workingSide = 640;
constexpr double workingRadius = 30;
// The photo's scale against the reference's may be this far from what their sizes say.
constexpr double scaleSlack = 2.5;
// A photo is taken near upright: a layout matched turned further is its mirror image's (a row of
// dials looks the same turned half round).
constexpr double mostTurn = 45 * 3.14159265358979323846 / 180;
// A circle stands for a dial within this share of the dial's radius of where the transform puts
// it, and with a radius within these shares of the dial's.
constexpr double nearShare = 0.35, smallest = 0.6, largest = 1.6;
// The circles tried as anchors, and those a dial may be matched to, strongest first (a textured
// photo has hundreds of weak ones).
constexpr size_t anchors = 30, candidates = 60;
// The side both photos are aligned at.
constexpr int alignSide = 320;
// The side a dial's box is compared at when its shift is measured (`pm_dials_shifts`).
constexpr double shiftSide = 56;

struct Circle {
  std::complex<double> centre;
  double radius;
};

struct Match {
  int matched = 0;
  double residual = 0;
  std::vector<std::pair<int, int>> pairs;  // (reference dial, circle)
};

// Which circles `similarity` (photo over reference pixels, turned) puts the reference's dials on,
// their `origin` going to the photo's `anchor`.
Match matchAt(
  const std::vector<Circle> &reference, const std::vector<Circle> &circles, std::complex<double> origin,
  std::complex<double> anchor, std::complex<double> similarity) {
  Match match;
  const double size = std::abs(similarity);
  for (int dial = 0; dial < int(reference.size()); ++dial) {
    const std::complex<double> expected = anchor + similarity * (reference[size_t(dial)].centre - origin);
    const double radius = reference[size_t(dial)].radius * size;
    int best = -1;
    double nearest = nearShare * radius;
    for (int index = 0; index < int(circles.size()); ++index) {
      const double apart = std::abs(circles[size_t(index)].centre - expected);
      const double ratio = circles[size_t(index)].radius / radius;
      if (apart < nearest && ratio > smallest && ratio < largest) {
        best = index, nearest = apart;
      }
    }
    if (best >= 0) {
      match.matched += 1;
      match.residual += nearest / radius;
      match.pairs.emplace_back(dial, best);
    }
  }
  return match;
}

}  // namespace

extern "C" {

pm_status pm_dials_locate(
  const pm_image *image, const pm_dial_circle *dials, int count, double expected_scale, double *homography,
  int *matched) {
  return guarded([&] {
    *matched = 0;
    if (count < 2 || !(expected_scale > 0)) {
      return fail(PM_BAD_ARGUMENT, "a meter is located by two dials or more, at a positive scale");
    }
    std::vector<Circle> reference;
    double smallestRadius = INFINITY, largestRadius = 0;
    for (int index = 0; index < count; ++index) {
      if (!(dials[index].radius > 0)) {
        return fail(PM_BAD_ARGUMENT, "every dial needs a positive radius");
      }
      reference.push_back({{dials[index].x, dials[index].y}, dials[index].radius});
      smallestRadius = std::min(smallestRadius, dials[index].radius);
      largestRadius = std::max(largestRadius, dials[index].radius);
    }
    // Photo pixels as decoded -> working pixels.
    const cv::Mat &photo = image->mat;
    const double toWorking = std::min(
      {1.0, double(workingSide) / std::max(photo.cols, photo.rows),
       workingRadius / (smallestRadius * expected_scale * image->scale)});
    cv::Mat searched = grey(photo);
    if (toWorking < 1) {
      cv::resize(searched, searched, cv::Size(), toWorking, toWorking, cv::INTER_AREA);
    }
    cv::GaussianBlur(searched, searched, cv::Size(5, 5), 1.2);
    const double working = toWorking * image->scale * expected_scale;  // reference -> working pixels
    const int minimum = std::max(4, int(smallestRadius * working / scaleSlack));
    const int maximum = std::max(minimum + 1, int(std::ceil(largestRadius * working * scaleSlack)));
    std::vector<cv::Vec3f> found;
    cv::HoughCircles(searched, found, cv::HOUGH_GRADIENT, 1, 1.5 * minimum, 100, 25, minimum, maximum);
    std::vector<Circle> circles;
    for (const auto &circle : found) {
      if (circles.size() == candidates) {
        break;
      }
      circles.push_back({{circle[0], circle[1]}, circle[2]});
    }
    const int needed = std::min(count, 3);
    if (int(circles.size()) < needed) {
      return PM_OK;
    }
    // Every pair of reference dials on every pair of the strongest circles.
    Match best;
    const size_t tried = std::min(circles.size(), anchors);
    for (int first = 0; first < count; ++first) {
      for (int second = first + 1; second < count; ++second) {
        const std::complex<double> span = reference[size_t(second)].centre - reference[size_t(first)].centre;
        if (std::abs(span) < 1e-6) {
          continue;
        }
        for (size_t a = 0; a < tried; ++a) {
          for (size_t b = 0; b < tried; ++b) {
            if (a == b) {
              continue;
            }
            const std::complex<double> similarity = (circles[b].centre - circles[a].centre) / span;
            const double size = std::abs(similarity) / working;
            if (size < 1 / scaleSlack || size > scaleSlack || std::abs(std::arg(similarity)) > mostTurn) {
              continue;
            }
            Match match =
              matchAt(reference, circles, reference[size_t(first)].centre, circles[a].centre, similarity);
            if (match.matched > best.matched || (match.matched == best.matched && match.residual < best.residual)) {
              best = std::move(match);
            }
          }
        }
      }
    }
    if (best.matched < needed) {
      return PM_OK;
    }
    std::vector<cv::Point2f> from, to;
    for (const auto &[dial, circle] : best.pairs) {
      from.emplace_back(float(reference[size_t(dial)].centre.real()), float(reference[size_t(dial)].centre.imag()));
      // Working pixels -> photo pixels as decoded.
      const double back = 1 / (toWorking * image->scale);
      to.emplace_back(
        float(circles[size_t(circle)].centre.real() * back), float(circles[size_t(circle)].centre.imag() * back));
    }
    const cv::Mat fitted = from.size() > 2 ? cv::estimateAffinePartial2D(from, to, cv::noArray(), cv::LMEDS)
                                           : cv::estimateAffinePartial2D(from, to);
    if (fitted.empty()) {
      return PM_OK;
    }
    for (int row = 0; row < 2; ++row) {
      for (int column = 0; column < 3; ++column) {
        homography[row * 3 + column] = fitted.at<double>(row, column);
      }
    }
    homography[6] = 0, homography[7] = 0, homography[8] = 1;
    *matched = best.matched;
    return PM_OK;
  });
}

pm_status pm_dials_shifts(
  const pm_image *reference, const pm_image *photo, const double *homography, const pm_dial_region *dials, int count,
  pm_dial_shift *out) {
  return guarded([&] {
    const cv::Matx33d given(homography);
    const cv::Matx33d intoPhoto(photo->scale, 0, 0, 0, photo->scale, 0, 0, 0, 1);
    for (int index = 0; index < count; ++index) {
      const pm_dial_region &dial = dials[index];
      if (dial.width < 8 || dial.height < 8) {
        return fail(PM_BAD_ARGUMENT, "a dial's box must be at least 8 pixels a side");
      }
      // Reference pixels -> working pixels: the box about `shiftSide` pixels a side.
      const double scale = shiftSide / double(std::max(dial.width, dial.height));
      const cv::Size box(
        std::max(4, int(std::lround(dial.width * scale))), std::max(4, int(std::lround(dial.height * scale))));
      const int reach = int(std::lround(0.5 * std::max(box.width, box.height)));
      const cv::Matx23d fromBox(
        reference->scale / scale, 0, reference->scale * dial.x, 0, reference->scale / scale, reference->scale * dial.y);
      cv::Mat patch, area;
      cv::warpAffine(reference->mat, patch, fromBox, box, cv::INTER_AREA | cv::WARP_INVERSE_MAP, cv::BORDER_REPLICATE);
      const cv::Matx33d fromArea(
        1 / scale, 0, dial.x - reach / scale, 0, 1 / scale, dial.y - reach / scale, 0, 0, 1);
      cv::warpPerspective(
        photo->mat, area, intoPhoto * given * fromArea, box + cv::Size(2 * reach, 2 * reach),
        cv::INTER_LINEAR | cv::WARP_INVERSE_MAP, cv::BORDER_REPLICATE);
      patch = grey(patch), area = grey(area);
      cv::GaussianBlur(patch, patch, cv::Size(5, 5), 1.0);
      cv::GaussianBlur(area, area, cv::Size(5, 5), 1.0);
      cv::Mat scores;
      cv::matchTemplate(area, patch, scores, cv::TM_CCOEFF_NORMED);
      double best = 0;
      cv::Point peak;
      cv::minMaxLoc(scores, nullptr, &best, nullptr, &peak);
      // The peak to a fraction of a pixel by a parabola through it and its neighbours.
      auto vertex = [&](cv::Point before, cv::Point after) {
        if (before.x < 0 || before.y < 0 || after.x >= scores.cols || after.y >= scores.rows) return 0.0;
        const double a = scores.at<float>(before), b = best, c = scores.at<float>(after);
        const double curve = a - 2 * b + c;
        return curve < 0 ? std::clamp(0.5 * (a - c) / curve, -0.5, 0.5) : 0.0;
      };
      const double column = peak.x + vertex(peak - cv::Point(1, 0), peak + cv::Point(1, 0));
      const double row = peak.y + vertex(peak - cv::Point(0, 1), peak + cv::Point(0, 1));
      out[index].dx = (column - reach) / scale;
      out[index].dy = (row - reach) / scale;
      out[index].score = best;
    }
    return PM_OK;
  });
}

pm_status pm_image_align(const pm_image *reference, const pm_image *photo, double *homography, double *correlation) {
  return guarded([&] {
    *correlation = 0;
    // Both at most `alignSide` pixels a side, grey and smoothed: the face's shapes, not its noise.
    auto prepared = [](const pm_image *image, double &scale) {
      scale = std::min(1.0, double(alignSide) / std::max(image->mat.cols, image->mat.rows));
      cv::Mat small;
      cv::resize(grey(image->mat), small, cv::Size(), scale, scale, scale < 1 ? cv::INTER_AREA : cv::INTER_LINEAR);
      small.convertTo(small, CV_32F);
      cv::GaussianBlur(small, small, cv::Size(5, 5), 1.5);
      scale *= image->scale;  // pixels as decoded -> working
      return small;
    };
    double referenceScale = 1, photoScale = 1;
    const cv::Mat from = prepared(reference, referenceScale), to = prepared(photo, photoScale);
    const cv::Matx33d given(homography);
    const cv::Matx33d intoReference(referenceScale, 0, 0, 0, referenceScale, 0, 0, 0, 1);
    const cv::Matx33d intoPhoto(photoScale, 0, 0, 0, photoScale, 0, 0, 0, 1);
    cv::Mat warp(intoPhoto * given * intoReference.inv());
    warp.convertTo(warp, CV_32F);
    double reached = 0;
    try {
      reached = cv::findTransformECC(
        from, to, warp, cv::MOTION_HOMOGRAPHY,
        cv::TermCriteria(cv::TermCriteria::COUNT + cv::TermCriteria::EPS, 50, 1e-4), cv::noArray(), 5);
    } catch (const cv::Exception &) {
      return PM_OK;  // did not converge: the homography stays as given
    }
    cv::Matx33d refined;
    cv::Mat(warp).convertTo(cv::Mat(3, 3, CV_64F, refined.val), CV_64F);
    refined = intoPhoto.inv() * refined * intoReference;
    for (int index = 0; index < 9; ++index) {
      homography[index] = refined.val[index] / refined.val[8];
    }
    *correlation = reached;
    return PM_OK;
  });
}

}  // extern "C"
