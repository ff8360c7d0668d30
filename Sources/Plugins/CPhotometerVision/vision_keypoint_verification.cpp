// Keypoints: a query matched with one reference (ratio test) and the homography verified
// (the index and its shortlist: vision_keypoints.cpp).
#include "photometer_vision.h"
#include "vision_internal.hpp"

#include <opencv2/calib3d.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

namespace {

// `ratioMatches` (vision_internal.hpp) in plain loops over 256-bit descriptors, several times
// faster than cv::BFMatcher::knnMatch (its distance matrix and sorting): the train rows are laid
// out word by word (every descriptor's first word together, and so on), so that a query row's
// distances to all of them are a loop the compiler vectorises (with AVX-512's or AVX2's popcount
// where the CPU has them), then scanned for the two nearest.
__attribute__((always_inline)) inline void ratioMatchesLoop(
  const cv::Mat &query, const cv::Mat &train, int maxDistance, float ratio, std::vector<std::pair<int, int>> &out) {
  const size_t count = size_t(train.rows);
  std::vector<uint64_t> columns(4 * count, 0);
  for (size_t candidate = 0; candidate < count; ++candidate) {
    uint64_t words[4];
    std::memcpy(words, train.ptr<uint8_t>(int(candidate)), 32);
    for (size_t word = 0; word < 4; ++word) {
      columns[word * count + candidate] = words[word];
    }
  }
  const uint64_t *w0 = columns.data(), *w1 = w0 + count, *w2 = w1 + count, *w3 = w2 + count;
  std::vector<uint32_t> distances(count, 0);
  for (int row = 0; row < query.rows; ++row) {
    uint64_t words[4];
    std::memcpy(words, query.ptr<uint8_t>(row), 32);
    const uint64_t q0 = words[0], q1 = words[1], q2 = words[2], q3 = words[3];
    uint32_t *into = distances.data();
    uint32_t best = 257;
    for (size_t candidate = 0; candidate < count; ++candidate) {
      into[candidate] = uint32_t(
        __builtin_popcountll(q0 ^ w0[candidate]) + __builtin_popcountll(q1 ^ w1[candidate]) +
        __builtin_popcountll(q2 ^ w2[candidate]) + __builtin_popcountll(q3 ^ w3[candidate]));
      best = std::min(best, into[candidate]);
    }
    // Then the second nearest distance (equal to the nearest when two rows are nearest), in a
    // vectorised pass too; the nearest row is the first at the nearest distance.
    if (int(best) > maxDistance) {
      continue;
    }
    uint32_t second = 257, ties = 0;
    for (size_t candidate = 0; candidate < count; ++candidate) {
      ties += into[candidate] == best ? 1 : 0;
      second = std::min(second, into[candidate] == best ? 257u : into[candidate]);
    }
    if (ties > 1) {
      second = best;
    }
    if (float(best) < ratio * float(second)) {
      const int bestRow = int(std::find(into, into + count, best) - into);
      out.emplace_back(row, bestRow);
    }
  }
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx512vpopcntdq,popcnt"))) void ratioMatchesAVX512(
  const cv::Mat &query, const cv::Mat &train, int maxDistance, float ratio, std::vector<std::pair<int, int>> &out) {
  ratioMatchesLoop(query, train, maxDistance, ratio, out);
}

__attribute__((target("avx2,popcnt"))) void ratioMatchesAVX2(
  const cv::Mat &query, const cv::Mat &train, int maxDistance, float ratio, std::vector<std::pair<int, int>> &out) {
  ratioMatchesLoop(query, train, maxDistance, ratio, out);
}

__attribute__((target("popcnt"))) void ratioMatchesPopcount(
  const cv::Mat &query, const cv::Mat &train, int maxDistance, float ratio, std::vector<std::pair<int, int>> &out) {
  ratioMatchesLoop(query, train, maxDistance, ratio, out);
}

void ratioMatchesPortable(
  const cv::Mat &query, const cv::Mat &train, int maxDistance, float ratio, std::vector<std::pair<int, int>> &out) {
  ratioMatchesLoop(query, train, maxDistance, ratio, out);
}

// Whether the part of the reference the inliers cover (their bounding box, shrunk pixels),
// carried into the query by `found`, is what a camera can see of a flat meter: a convex
// quadrilateral in front of the camera, corners of 15 to 165 degrees, opposite sides within 5
// times of each other, and an area between a 400th and twice the query's. A homography fitted to
// a few chance inliers draws anything. (The reference's whole frame is no test: its corners lie
// far from the inliers, where a right homography's small errors grow.)
bool plausibleOutline(const cv::Mat &found, cv::Rect2f covered, cv::Size querySize) {
  const double left = covered.x, top = covered.y, right = covered.x + covered.width, bottom = covered.y + covered.height;
  const double corners[4][2] = {{left, top}, {right, top}, {right, bottom}, {left, bottom}};
  cv::Point2d outline[4];
  for (int index = 0; index < 4; ++index) {
    const double x = corners[index][0], y = corners[index][1];
    const double z = found.at<double>(2, 0) * x + found.at<double>(2, 1) * y + found.at<double>(2, 2);
    if (z <= 1e-9) {
      return false;  // behind the camera: the homography wraps through infinity
    }
    outline[index] = {(found.at<double>(0, 0) * x + found.at<double>(0, 1) * y + found.at<double>(0, 2)) / z,
                      (found.at<double>(1, 0) * x + found.at<double>(1, 1) * y + found.at<double>(1, 2)) / z};
  }
  double area = 0;
  int turns = 0;
  double sides[4];
  for (int index = 0; index < 4; ++index) {
    const cv::Point2d a = outline[index], b = outline[(index + 1) % 4], c = outline[(index + 2) % 4];
    const cv::Point2d ab = b - a, bc = c - b;
    sides[index] = std::hypot(ab.x, ab.y);
    const double cross = ab.x * bc.y - ab.y * bc.x;
    turns += cross > 0 ? 1 : (cross < 0 ? -1 : 0);
    const double lengths = sides[index] * std::hypot(bc.x, bc.y);
    if (lengths <= 0) {
      return false;
    }
    // The corner's interior angle is 180 degrees less the turn between the two sides.
    const double interior = 180.0 - std::acos(std::clamp((ab.x * bc.x + ab.y * bc.y) / lengths, -1.0, 1.0)) * 180.0 / CV_PI;
    if (interior < 15 || interior > 165) {
      return false;
    }
    area += a.x * b.y - b.x * a.y;
  }
  if (std::abs(turns) != 4) {
    return false;  // not convex, or it crosses itself
  }
  for (int index = 0; index < 2; ++index) {
    const double longer = std::max(sides[index], sides[index + 2]), shorter = std::min(sides[index], sides[index + 2]);
    if (shorter * 5 < longer) {
      return false;
    }
  }
  const double photo = double(querySize.width) * double(querySize.height);
  area = std::abs(area) / 2;
  return area * 400 >= photo && area <= 2 * photo;
}

// The bounding box of the points `mask` marks.
cv::Rect2f inlierBounds(const std::vector<cv::Point2f> &points, const cv::Mat &mask) {
  float left = FLT_MAX, top = FLT_MAX, right = -FLT_MAX, bottom = -FLT_MAX;
  for (size_t index = 0; index < points.size(); ++index) {
    if (mask.at<uint8_t>(int(index))) {
      left = std::min(left, points[index].x), right = std::max(right, points[index].x);
      top = std::min(top, points[index].y), bottom = std::max(bottom, points[index].y);
    }
  }
  return left <= right ? cv::Rect2f(left, top, right - left, bottom - top) : cv::Rect2f();
}

// One estimate of the homography from `from` to `to` (shrunk pixels of both) by `method`: its
// score, the cells of a 16 x 16 grid over the reference that hold an inlier (inliers bunched in
// one spot, a word two meters share, prove little), in original pixels; 0 when there is none or
// it is implausible (folds or collapses the meter, or draws what no camera could see of it:
// `plausibleOutline`).
int estimateHomography(
  const std::vector<cv::Point2f> &from, const std::vector<cv::Point2f> &to, cv::Size referenceSize,
  cv::Size querySize, double referenceScale, double queryScale, int method, int iterations, double homography[9]) {
  cv::Mat mask;
  cv::Mat found = cv::findHomography(from, to, method, 4.0, mask, iterations, 0.995);
  if (found.empty()) {
    return 0;
  }
  const double determinant =
    found.at<double>(0, 0) * found.at<double>(1, 1) - found.at<double>(0, 1) * found.at<double>(1, 0);
  if (determinant < 0.05 || determinant > 20 || !plausibleOutline(found, inlierBounds(from, mask), querySize)) {
    return 0;
  }
  cv::Mat toReference = cv::Mat::eye(3, 3, CV_64F), fromQuery = cv::Mat::eye(3, 3, CV_64F);
  toReference.at<double>(0, 0) = toReference.at<double>(1, 1) = referenceScale;
  fromQuery.at<double>(0, 0) = fromQuery.at<double>(1, 1) = 1.0 / queryScale;
  cv::Mat original = fromQuery * found * toReference;
  original /= original.at<double>(2, 2);
  for (int index = 0; index < 9; ++index) {
    homography[index] = original.at<double>(index / 3, index % 3);
  }
  constexpr int grid = 16;
  bool cells[grid][grid] = {};
  int occupied = 0;
  for (size_t index = 0; index < from.size(); ++index) {
    if (!mask.at<uint8_t>(int(index))) {
      continue;
    }
    const int column = std::clamp(int(grid * from[index].x / std::max(referenceSize.width, 1)), 0, grid - 1);
    const int row = std::clamp(int(grid * from[index].y / std::max(referenceSize.height, 1)), 0, grid - 1);
    if (!cells[row][column]) {
      cells[row][column] = true;
      ++occupied;
    }
  }
  return occupied >= 4 ? occupied : 0;
}

}  // namespace

namespace pm {

std::vector<std::pair<int, int>> ratioMatches(const cv::Mat &query, const cv::Mat &train, int maxDistance, float ratio) {
  static const auto matcher = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512vpopcntdq") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl")) {
      return ratioMatchesAVX512;
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt")) {
      return ratioMatchesAVX2;
    }
    return __builtin_cpu_supports("popcnt") ? ratioMatchesPopcount : ratioMatchesPortable;
  }();
  std::vector<std::pair<int, int>> out;
  if (train.rows > 0) {
    matcher(query, train, maxDistance, ratio, out);
  }
  return out;
}

// The verified homography and its score (`estimateHomography`): a fast RANSAC first, and when
// that is not beyond chance, MAGSAC with more iterations, the better kept. Among repeated print
// (a water meter's alike dials) the fast search often settles on a shifted fit; the slower one
// costs time only where the first left doubt.
int verifiedHomography(
  const std::vector<cv::Point2f> &from, const std::vector<cv::Point2f> &to, cv::Size referenceSize,
  cv::Size querySize, double referenceScale, double queryScale, double homography[9]) {
  std::fill(homography, homography + 9, 0.0);
  if (from.size() < 8) {
    return 0;
  }
  int score = estimateHomography(
    from, to, referenceSize, querySize, referenceScale, queryScale, cv::USAC_FAST, 1000, homography);
  if (score >= kBeyondChance) {
    return score;
  }
  double second[9];
  const int again = estimateHomography(
    from, to, referenceSize, querySize, referenceScale, queryScale, cv::USAC_MAGSAC, 5000, second);
  if (again > score) {
    std::copy(second, second + 9, homography);
    score = again;
  }
  return score;
}

}  // namespace pm
