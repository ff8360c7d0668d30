// Digits: preparing a crop, its digit window, text lines and the loops of a glyph.
#include "photometer_vision.h"
#include "vision_internal.hpp"

#include <array>
#include <cstdlib>

using namespace pm;

namespace {
// Holes smaller than this, in pixels of a glyph 64 high, are noise in the ink, not a loop.
constexpr double minimumHoleArea = 6;
}  // namespace

extern "C" {

pm_status pm_digits_prepare(const pm_image *image, int height, int border, int binarize, pm_image **out) {
  return guarded([&] {
    *out = nullptr;
    if (height <= 0 || height > 2000 || border < 0 || border > 500) {
      return fail(PM_BAD_ARGUMENT, "the height must be 1 to 2000 and the border 0 to 500 pixels");
    }
    cv::Mat greyImage = grey(image->mat).clone();
    // Digits must be the darker.
    if (lightOnDark(greyImage)) {
      cv::bitwise_not(greyImage, greyImage);
    }
    const double scale = double(height) / greyImage.rows;
    cv::Mat resized;
    cv::resize(greyImage, resized, cv::Size(std::max(1, int(greyImage.cols * scale + 0.5)), height), 0, 0,
      scale < 1 ? cv::INTER_AREA : cv::INTER_CUBIC);
    auto [low, high] = percentiles(resized, 0.02, 0.98);
    if (high > low) {
      resized.convertTo(resized, CV_8U, 255.0 / (high - low), -255.0 * low / (high - low));
    }
    if (binarize) {
      cv::threshold(resized, resized, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
    }
    cv::copyMakeBorder(resized, resized, border, border, border, border, cv::BORDER_CONSTANT, cv::Scalar(255));
    *out = wrap(resized);
    return PM_OK;
  });
}

pm_status pm_digits_window(const pm_image *image, int rect[4]) {
  return guarded([&] {
    cv::Mat greyImage = grey(image->mat);
    rect[0] = rect[1] = 0;
    rect[2] = greyImage.cols;
    rect[3] = greyImage.rows;
    if (greyImage.empty()) {
      return PM_OK;
    }
    // Dark on light, as pm_digits_prepare makes it; then "dark" is below the middle of the
    // contrast-stretched range.
    const bool inverted = lightOnDark(greyImage);
    auto [low, high] = percentiles(greyImage, 0.02, 0.98);
    const double middle = (low + high) / 2.0;
    const auto dark = [&](const cv::Mat &line) {
      const double mean = cv::mean(line)[0];
      return inverted ? mean > middle : mean < middle;
    };
    // At most a quarter of each side is frame.
    int left = 0, right = greyImage.cols, top = 0, bottom = greyImage.rows;
    while (left < greyImage.cols / 4 && dark(greyImage.col(left))) {
      ++left;
    }
    while (right > greyImage.cols - greyImage.cols / 4 && dark(greyImage.col(right - 1))) {
      --right;
    }
    const cv::Range columns(left, right);
    while (top < greyImage.rows / 4 && dark(greyImage.row(top).colRange(columns))) {
      ++top;
    }
    while (bottom > greyImage.rows - greyImage.rows / 4 && dark(greyImage.row(bottom - 1).colRange(columns))) {
      --bottom;
    }
    rect[0] = left;
    rect[1] = top;
    rect[2] = right - left;
    rect[3] = bottom - top;
    return PM_OK;
  });
}

pm_status pm_text_lines(const pm_image *image, int expected, int topmost, int *rects) {
  return guarded([&] {
    if (expected < 1 || expected > 16) {
      return fail(PM_BAD_ARGUMENT, "1 to 16 lines may be expected");
    }
    const cv::Mat greyImage = grey(image->mat);
    const int rows = greyImage.rows, columns = greyImage.cols;
    cv::Mat ink;
    cv::threshold(greyImage, ink, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
    if (cv::countNonZero(ink) > int(ink.total() / 2)) {
      cv::bitwise_not(ink, ink);  // ink is the minority
    }
    // Ink per row, ignoring the outer tenth of the columns (frames, labels at the edges), then
    // bands of rows with more than a fifth of the median inked row's ink. Gaps of a few rows
    // (a seven-segment digit's middle) do not end a band.
    const cv::Mat inner = ink.colRange(columns / 10, std::max(columns / 10 + 1, columns - columns / 10));
    std::vector<int> profile(size_t(rows), 0);
    for (int row = 0; row < rows; ++row) {
      profile[size_t(row)] = cv::countNonZero(inner.row(row));
    }
    std::vector<int> inked;
    for (int value : profile) {
      if (value > 0) inked.push_back(value);
    }
    std::vector<cv::Rect> bands;
    if (!inked.empty()) {
      std::nth_element(inked.begin(), inked.begin() + inked.size() / 2, inked.end());
      const int floor = std::max(1, inked[inked.size() / 2] / 5);
      const int bridge = std::max(1, rows / (12 * expected));
      int start = -1, lastInked = -1;
      for (int row = 0; row <= rows; ++row) {
        const bool on = row < rows && profile[size_t(row)] >= floor;
        if (on) {
          if (start < 0) start = row;
          lastInked = row;
        } else if (start >= 0 && (row == rows || row - lastInked > bridge)) {
          // Too thin to be a line of digits: a rule, a frame's edge.
          if (lastInked - start + 1 >= rows / (6 * expected)) {
            bands.emplace_back(0, start, columns, lastInked - start + 1);
          }
          start = -1;
        }
      }
    }
    if (topmost && int(bands.size()) > expected) {
      bands.resize(size_t(expected));
    }
    if (int(bands.size()) > expected) {
      std::vector<std::pair<long, int>> weights;
      for (size_t band = 0; band < bands.size(); ++band) {
        long sum = 0;
        for (int row = bands[band].y; row < bands[band].y + bands[band].height; ++row) sum += profile[size_t(row)];
        weights.emplace_back(-sum, int(band));
      }
      std::sort(weights.begin(), weights.end());
      std::vector<cv::Rect> kept;
      for (int index = 0; index < expected; ++index) kept.push_back(bands[size_t(weights[size_t(index)].second)]);
      std::sort(kept.begin(), kept.end(), [](const cv::Rect &a, const cv::Rect &b) { return a.y < b.y; });
      bands = kept;
    }
    if (int(bands.size()) < expected) {
      bands.clear();
      for (int index = 0; index < expected; ++index) {
        const int top = rows * index / expected, bottom = rows * (index + 1) / expected;
        bands.emplace_back(0, top, columns, std::max(1, bottom - top));
      }
    }
    // A little margin above and below each line, for the engines' own cropping.
    for (int index = 0; index < expected; ++index) {
      const cv::Rect band = bands[size_t(index)];
      const int margin = std::max(1, band.height / 8);
      const int top = std::max(0, band.y - margin), bottom = std::min(rows, band.y + band.height + margin);
      rects[4 * index] = 0;
      rects[4 * index + 1] = top;
      rects[4 * index + 2] = columns;
      rects[4 * index + 3] = bottom - top;
    }
    return PM_OK;
  });
}

pm_status pm_glyph_loops(const pm_image *image, int left, int right, pm_glyph_loops_result *out) {
  return guarded([&] {
    *out = pm_glyph_loops_result{0, 0, 0, 0};
    cv::Mat greyImage = grey(image->mat);
    left = std::clamp(left, 0, greyImage.cols);
    right = std::clamp(right, left, greyImage.cols);
    if (right - left < 2 || greyImage.rows < 2) {
      return PM_OK;
    }
    // A glyph 64 pixels high, whatever the window's resolution, so that the least hole is one size.
    constexpr int height = 64;
    const cv::Mat cell = greyImage.colRange(left, right);
    const int width = std::max(2, int(std::lround(double(cell.cols) * height / cell.rows)));
    cv::Mat resized, ink;
    cv::resize(cell, resized, cv::Size(width, height), 0, 0, cv::INTER_AREA);
    cv::threshold(resized, ink, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
    // Ink is the minority side of the threshold.
    if (cv::countNonZero(ink) * 2 > ink.rows * ink.cols) {
      cv::bitwise_not(ink, ink);
    }
    std::vector<std::vector<cv::Point>> contours;
    std::vector<cv::Vec4i> hierarchy;
    cv::findContours(ink, contours, hierarchy, cv::RETR_CCOMP, cv::CHAIN_APPROX_NONE);
    int glyph = -1;
    double largest = 0;
    for (size_t index = 0; index < contours.size(); ++index) {
      const double area = cv::contourArea(contours[index]);
      if (hierarchy[index][3] < 0 && area > largest) {
        largest = area;
        glyph = int(index);
      }
    }
    if (glyph < 0) {
      return PM_OK;
    }
    const cv::Rect bounds = cv::boundingRect(contours[size_t(glyph)]);
    int top = bounds.y + bounds.height, bottom = bounds.y;
    for (int child = hierarchy[size_t(glyph)][2]; child >= 0; child = hierarchy[size_t(child)][0]) {
      if (cv::contourArea(contours[size_t(child)]) < minimumHoleArea) {
        continue;
      }
      const cv::Rect hole = cv::boundingRect(contours[size_t(child)]);
      out->holes += 1;
      top = std::min(top, hole.y);
      bottom = std::max(bottom, hole.y + hole.height);
    }
    out->stands_free = bounds.y > 0 && bounds.y + bounds.height < ink.rows;
    if (out->holes > 0) {
      out->top = double(top - bounds.y) / bounds.height;
      out->bottom = double(bottom - bounds.y) / bounds.height;
    }
    return PM_OK;
  });
}

}  // extern "C"
