// Keypoints: ORB features of a photo, spread over it, and of its tilted views.
#include "photometer_vision.h"
#include "vision_internal.hpp"

#include <opencv2/features2d.hpp>

#include <algorithm>

using namespace pm;

// The smallest side ORB is given: twice its 15-pixel edge threshold and a pixel.
static constexpr int kMinimumKeypointSide = 31;

namespace {

// The strongest keypoints of a meter crowd on its counter window, whose digits change from photo
// to photo, and on its brand name and barcode; its small print, edges and corners get none, and a
// query with another reading then matches on little but the brand name. So ORB finds
// kCandidatesPerFeature times the keypoints wanted, at a lower corner threshold than its default
// (20), and they are taken in turn from each cell of a kSpreadGrid x kSpreadGrid grid over the
// photo, strongest first (figures in docs/recognizers.md, *Keypoint matcher*).
constexpr int kCandidatesPerFeature = 3, kFastThreshold = 10, kSpreadGrid = 8;

std::vector<cv::KeyPoint> spreadOut(std::vector<cv::KeyPoint> keypoints, cv::Size size, int wanted) {
  if (int(keypoints.size()) <= wanted) {
    return keypoints;
  }
  std::sort(keypoints.begin(), keypoints.end(), [](const cv::KeyPoint &a, const cv::KeyPoint &b) {
    return a.response > b.response;
  });
  std::vector<std::vector<const cv::KeyPoint *>> cells(kSpreadGrid * kSpreadGrid);
  for (const cv::KeyPoint &keypoint : keypoints) {
    const int column = std::clamp(int(kSpreadGrid * keypoint.pt.x / float(size.width)), 0, kSpreadGrid - 1);
    const int row = std::clamp(int(kSpreadGrid * keypoint.pt.y / float(size.height)), 0, kSpreadGrid - 1);
    cells[size_t(row * kSpreadGrid + column)].push_back(&keypoint);
  }
  std::vector<cv::KeyPoint> chosen;
  chosen.reserve(size_t(wanted));
  for (size_t rank = 0; int(chosen.size()) < wanted; ++rank) {
    for (const auto &cell : cells) {
      if (rank < cell.size() && int(chosen.size()) < wanted) {
        chosen.push_back(*cell[rank]);
      }
    }
  }
  return chosen;
}

// A meter seen from the side is foreshortened across the line of sight, and ORB, which copes
// with turns and scale, does not match a corner squeezed by half. A reference is therefore also
// seen squeezed, as from 50 degrees to the left or right (its width by 1.6) and from above or
// below (its height), as ASIFT simulates tilts; the keypoints of those views are kept in the
// reference's own pixels, so that the homography is fitted as for the head-on ones. They are
// matched in the verification only, not hashed into the index: there their copies of shared
// print crowd the right meter off the shortlist among many look-alike meters.
constexpr std::pair<float, float> kTilts[] = {{1.6f, 1.0f}, {1.0f, 1.6f}};

// Appends the keypoints of `view` (`wanted` of them, spread out), its pixels stretched by
// (stretchX, stretchY) back into the reference's.
void detectInto(pm_keypoints &result, const cv::Mat &view, int wanted, float stretchX, float stretchY) {
  auto orb = cv::ORB::create(
    wanted * kCandidatesPerFeature, 1.2f, 8, 15, 0, 2, cv::ORB::HARRIS_SCORE, 15, kFastThreshold);
  std::vector<cv::KeyPoint> keypoints;
  orb->detect(view, keypoints);
  keypoints = spreadOut(std::move(keypoints), view.size(), wanted);
  cv::Mat descriptors;
  orb->compute(view, keypoints, descriptors);
  if (keypoints.empty()) {
    return;
  }
  result.descriptors.push_back(descriptors);
  for (const cv::KeyPoint &keypoint : keypoints) {
    result.points.emplace_back(keypoint.pt.x * stretchX, keypoint.pt.y * stretchY);
    result.angles.push_back(keypoint.angle);
    result.octaves.push_back(int8_t(keypoint.octave));
  }
}

}  // namespace

extern "C" {

pm_status pm_keypoints_detect(const pm_image *image, int max_features, pm_keypoints **out) {
  return pm_keypoints_detect_views(image, max_features, 0, out);
}

pm_status pm_keypoints_detect_views(const pm_image *image, int max_features, int tilted_features, pm_keypoints **out) {
  return guarded([&] {
    *out = nullptr;
    auto result = std::make_unique<pm_keypoints>();
    result->scale = image->scale;
    result->size = image->mat.size();
    // ORB's pyramid cannot shrink an image this small (OpenCV asserts in resize), and it would
    // find no keypoint within the 15-pixel border anyway: such a photo has no features.
    if (std::min(image->mat.cols, image->mat.rows) >= kMinimumKeypointSide) {
      const cv::Mat greyImage = grey(image->mat);
      detectInto(*result, greyImage, max_features, 1, 1);
      result->headOn = result->descriptors.rows;
      if (tilted_features > 0) {
        for (const auto &[stretchX, stretchY] : kTilts) {
          cv::Mat view;
          cv::resize(greyImage, view, cv::Size(), 1 / stretchX, 1 / stretchY, cv::INTER_AREA);
          if (std::min(view.cols, view.rows) >= kMinimumKeypointSide) {
            detectInto(*result, view, tilted_features, stretchX, stretchY);
          }
        }
      }
    }
    *out = result.release();
    return PM_OK;
  });
}

void pm_keypoints_free(pm_keypoints *keypoints) {
  delete keypoints;
}

int pm_keypoints_count(const pm_keypoints *keypoints) {
  return int(keypoints->points.size());
}

void pm_keypoints_points(const pm_keypoints *keypoints, float *xy) {
  for (const cv::Point2f &point : keypoints->points) {
    *xy++ = point.x;
    *xy++ = point.y;
  }
}

}  // extern "C"
