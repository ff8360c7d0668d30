// Keypoints: ORB features of a photo, spread over it, and of its tilted views.
#include "photometer_vision.h"
#include "vision_internal.hpp"

#include <opencv2/features2d.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

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

// Appends the keypoints of `view` (`wanted` of them, spread out; only where `mask` is set, when
// it is not empty), its pixels stretched by (stretchX, stretchY) back into the reference's.
void detectInto(
  pm_keypoints &result, const cv::Mat &view, const cv::Mat &mask, int wanted, float stretchX, float stretchY) {
  auto orb = cv::ORB::create(
    wanted * kCandidatesPerFeature, 1.2f, 8, 15, 0, 2, cv::ORB::HARRIS_SCORE, 15, kFastThreshold);
  std::vector<cv::KeyPoint> keypoints;
  orb->detect(view, keypoints, mask);
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

// The meter around its digit window in a reference photo, as a mask: GrabCut, on a copy at most
// 160 pixels long, with the window surely the meter, a band along the photo's border surely not,
// and everything else told apart by colour. A wall, tiles or a neighbouring meter behind it then
// give the reference no keypoints: the same wall in a photo of another meter would match them,
// and keypoints spent on it are missing on the meter. Empty (keep the whole photo) when the
// window is not in the photo, or the region found is no larger than a few windows or fills nearly
// the whole photo (nothing told the meter from its background).
cv::Mat meterMask(const cv::Mat &colour, cv::Rect window) {
  window &= cv::Rect(0, 0, colour.cols, colour.rows);
  if (colour.channels() != 3 || window.width < 4 || window.height < 4) {
    return {};
  }
  const double shrink = std::min(1.0, 160.0 / std::max(colour.cols, colour.rows));
  cv::Mat small;
  cv::resize(colour, small, cv::Size(), shrink, shrink, cv::INTER_AREA);
  const cv::Rect inner = cv::Rect(int(window.x * shrink), int(window.y * shrink), std::max(1, int(window.width * shrink)),
                                  std::max(1, int(window.height * shrink))) &
    cv::Rect(0, 0, small.cols, small.rows);
  const int band = std::max(2, int(0.03 * std::max(small.cols, small.rows)));
  if (inner.empty() || std::min(small.cols, small.rows) <= 4 * band) {
    return {};
  }
  cv::Mat labels(small.size(), CV_8U, cv::Scalar(cv::GC_PR_FGD));
  labels.rowRange(0, band).setTo(cv::GC_BGD);
  labels.rowRange(small.rows - band, small.rows).setTo(cv::GC_BGD);
  labels.colRange(0, band).setTo(cv::GC_BGD);
  labels.colRange(small.cols - band, small.cols).setTo(cv::GC_BGD);
  labels(inner).setTo(cv::GC_FGD);
  cv::Mat background, foreground;
  cv::grabCut(small, labels, cv::Rect(), background, foreground, 2, cv::GC_INIT_WITH_MASK);
  const cv::Mat found = (labels == cv::GC_FGD) | (labels == cv::GC_PR_FGD);
  // Only the region that holds the window, its holes (print and glass on the meter) filled.
  cv::Mat components;
  cv::connectedComponents(found, components, 8, CV_32S);
  const int label = components.at<int>(inner.y + inner.height / 2, inner.x + inner.width / 2);
  if (label == 0) {
    return {};
  }
  std::vector<std::vector<cv::Point>> outlines;
  cv::findContours(cv::Mat(components == label), outlines, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE);
  cv::Mat meter = cv::Mat::zeros(small.size(), CV_8U);
  cv::drawContours(meter, outlines, -1, cv::Scalar(255), cv::FILLED);
  const double share = cv::countNonZero(meter) / double(meter.total());
  if (share < 3 * double(inner.area()) / double(meter.total()) || share > 0.9) {
    return {};
  }
  // A margin, so that the meter's outline against the wall keeps its corners.
  const int margin = std::max(1, int(0.03 * std::max(small.cols, small.rows)));
  cv::dilate(meter, meter, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(2 * margin + 1, 2 * margin + 1)));
  cv::Mat mask;
  cv::resize(meter, mask, colour.size(), 0, 0, cv::INTER_NEAREST);
  return mask;
}

}  // namespace

namespace {

// The layout of encoded keypoints: a tag naming this layout, then the fields in order.
constexpr char kEncodedTag[8] = {'p', 'm', 'k', 'p', 't', 's', '0', '1'};

template <typename T> void put(std::vector<uint8_t> &bytes, const T *values, size_t count) {
  const auto *start = reinterpret_cast<const uint8_t *>(values);
  bytes.insert(bytes.end(), start, start + sizeof(T) * count);
}

template <typename T> bool take(const uint8_t *&cursor, const uint8_t *end, T *values, size_t count) {
  size_t length = sizeof(T) * count;
  if (size_t(end - cursor) < length) return false;
  std::memcpy(values, cursor, length);
  cursor += length;
  return true;
}

}  // namespace

extern "C" {

pm_status pm_keypoints_detect(const pm_image *image, int max_features, pm_keypoints **out) {
  return pm_keypoints_detect_views(image, max_features, 0, 0, 0, 0, 0, out);
}

pm_status pm_keypoints_detect_views(
  const pm_image *image, int max_features, int tilted_features, int window_x, int window_y, int window_width,
  int window_height, pm_keypoints **out) {
  return guarded([&] {
    *out = nullptr;
    auto result = std::make_unique<pm_keypoints>();
    result->scale = image->scale;
    result->size = image->mat.size();
    // ORB's pyramid cannot shrink an image this small (OpenCV asserts in resize), and it would
    // find no keypoint within the 15-pixel border anyway: such a photo has no features.
    if (std::min(image->mat.cols, image->mat.rows) >= kMinimumKeypointSide) {
      const cv::Mat greyImage = grey(image->mat);
      const cv::Mat mask =
        window_width > 0 ? meterMask(image->mat, cv::Rect(window_x, window_y, window_width, window_height)) : cv::Mat();
      detectInto(*result, greyImage, mask, max_features, 1, 1);
      result->headOn = result->descriptors.rows;
      if (tilted_features > 0) {
        for (const auto &[stretchX, stretchY] : kTilts) {
          cv::Mat view, viewMask;
          cv::resize(greyImage, view, cv::Size(), 1 / stretchX, 1 / stretchY, cv::INTER_AREA);
          if (!mask.empty()) {
            cv::resize(mask, viewMask, view.size(), 0, 0, cv::INTER_NEAREST);
          }
          if (std::min(view.cols, view.rows) >= kMinimumKeypointSide) {
            detectInto(*result, view, viewMask, tilted_features, stretchX, stretchY);
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

pm_status pm_keypoints_encode(const pm_keypoints *keypoints, uint8_t **out, size_t *size) {
  return guarded([&] {
    if (!keypoints || !out || !size) return fail(PM_BAD_ARGUMENT, "no keypoints or no place for the bytes");
    const int32_t count = int32_t(keypoints->points.size());
    const int32_t width = keypoints->descriptors.empty() ? 0 : keypoints->descriptors.cols;
    if (keypoints->angles.size() != size_t(count) || keypoints->octaves.size() != size_t(count) ||
        (count > 0 && (keypoints->descriptors.rows != count || keypoints->descriptors.type() != CV_8U))) {
      return fail(PM_FAILED, "the keypoints are inconsistent and cannot be encoded");
    }
    std::vector<uint8_t> bytes;
    put(bytes, kEncodedTag, sizeof kEncodedTag);
    const int32_t header[5] = {count, width, keypoints->headOn, keypoints->size.width, keypoints->size.height};
    put(bytes, header, 5);
    put(bytes, &keypoints->scale, 1);
    put(bytes, keypoints->points.data(), keypoints->points.size());
    put(bytes, keypoints->angles.data(), keypoints->angles.size());
    put(bytes, keypoints->octaves.data(), keypoints->octaves.size());
    for (int row = 0; row < keypoints->descriptors.rows; ++row) {
      put(bytes, keypoints->descriptors.ptr<uint8_t>(row), size_t(width));
    }
    *out = static_cast<uint8_t *>(std::malloc(bytes.size()));
    if (!*out) return fail(PM_FAILED, "out of memory encoding keypoints");
    std::memcpy(*out, bytes.data(), bytes.size());
    *size = bytes.size();
    return PM_OK;
  });
}

pm_status pm_keypoints_decode(const uint8_t *data, size_t size, pm_keypoints **out) {
  return guarded([&] {
    if (!data || !out) return fail(PM_BAD_ARGUMENT, "no bytes or no place for the keypoints");
    const uint8_t *cursor = data, *end = data + size;
    char tag[sizeof kEncodedTag];
    int32_t header[5];
    double scale = 1;
    if (!take(cursor, end, tag, sizeof tag) || std::memcmp(tag, kEncodedTag, sizeof tag) != 0 ||
        !take(cursor, end, header, 5) || !take(cursor, end, &scale, 1)) {
      return fail(PM_BAD_ARGUMENT, "the bytes are not encoded keypoints of this version");
    }
    const int32_t count = header[0], width = header[1];
    if (count < 0 || width < 0 || header[2] < 0 || header[2] > count || (count > 0 && width == 0)) {
      return fail(PM_BAD_ARGUMENT, "the encoded keypoints' header is inconsistent");
    }
    // What the header promises must be what is left, before anything is allocated for it.
    const uint64_t perKeypoint = sizeof(cv::Point2f) + sizeof(float) + sizeof(int8_t) + uint64_t(width);
    if (uint64_t(end - cursor) != uint64_t(count) * perKeypoint) {
      return fail(PM_BAD_ARGUMENT, "the encoded keypoints are cut off or too long");
    }
    auto keypoints = std::make_unique<pm_keypoints>();
    keypoints->points.resize(size_t(count));
    keypoints->angles.resize(size_t(count));
    keypoints->octaves.resize(size_t(count));
    keypoints->headOn = header[2];
    keypoints->size = cv::Size(header[3], header[4]);
    keypoints->scale = scale;
    // The sizes were checked above, so every field is there to take.
    take(cursor, end, keypoints->points.data(), size_t(count));
    take(cursor, end, keypoints->angles.data(), size_t(count));
    take(cursor, end, keypoints->octaves.data(), size_t(count));
    if (count > 0) {
      keypoints->descriptors.create(count, width, CV_8U);
      for (int row = 0; row < count; ++row) {
        take(cursor, end, keypoints->descriptors.ptr<uint8_t>(row), size_t(width));
      }
    }
    *out = keypoints.release();
    return PM_OK;
  });
}

}  // extern "C"
