// Digits: preparing a crop, its digit window, its cells and text lines.
#include "photometer_vision.h"
#include "vision_internal.hpp"

#include <array>
#include <cstdlib>

using namespace pm;

namespace {

// Polarity: whether the digits are light on a dark background, the background being the larger
// side of Otsu's threshold.
bool lightOnDark(const cv::Mat &greyImage) {
  cv::Mat binary;
  cv::threshold(greyImage, binary, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
  return cv::countNonZero(binary) < int(binary.total() / 2);
}

// Cells from connected components merged by column overlap (segments of one seven-segment digit
// overlap in columns), on one common text line.
std::vector<cv::Rect> componentCells(const cv::Mat &ink) {
  const int width = ink.cols, height = ink.rows;
  std::vector<cv::Rect> cells;
  cv::Mat labels, stats, centroids;
  const int found = cv::connectedComponentsWithStats(ink, labels, stats, centroids, 8, CV_32S);
  std::vector<cv::Rect> parts;
  for (int label = 1; label < found; ++label) {
    cv::Rect box(
      stats.at<int>(label, cv::CC_STAT_LEFT), stats.at<int>(label, cv::CC_STAT_TOP),
      stats.at<int>(label, cv::CC_STAT_WIDTH), stats.at<int>(label, cv::CC_STAT_HEIGHT));
    const int area = stats.at<int>(label, cv::CC_STAT_AREA);
    // Frame edges span the image; specks and decimal points are small.
    if (box.height >= height * 95 / 100 || box.width >= width * 9 / 10 || area < 12 ||
        box.height < height / 12) {
      continue;
    }
    parts.push_back(box);
  }
  std::sort(parts.begin(), parts.end(), [](const cv::Rect &a, const cv::Rect &b) { return a.x < b.x; });
  // Segments of one seven-segment digit overlap in columns: merge them.
  std::vector<cv::Rect> groups;
  for (const auto &part : parts) {
    if (!groups.empty()) {
      cv::Rect &last = groups.back();
      const int overlap = std::min(last.x + last.width, part.x + part.width) - std::max(last.x, part.x);
      if (overlap > std::min(last.width, part.width) / 3) {
        last |= part;
        continue;
      }
    }
    groups.push_back(part);
  }
  int tallest = 0;
  for (const auto &group : groups) {
    tallest = std::max(tallest, group.height);
  }
  int top = height, bottom = 0;
  for (const auto &group : groups) {
    if (group.height >= tallest / 2) {
      top = std::min(top, group.y);
      bottom = std::max(bottom, group.y + group.height);
    }
  }
  for (const auto &group : groups) {
    if (group.height >= tallest / 2) {
      cells.emplace_back(group.x, top, group.width, bottom - top);
    }
  }
  return cells;
}

// The median of some values (the upper one of an even count).
int median(std::vector<int> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

// The median width of some cells.
int medianWidth(const std::vector<cv::Rect> &cells) {
  std::vector<int> widths;
  for (const auto &cell : cells) {
    widths.push_back(cell.width);
  }
  return median(std::move(widths));
}

// The steps between the right edges of neighbouring digits (right edges, because a seven-segment
// 1 is only its right segments).
std::vector<int> rightEdgeSteps(const std::vector<cv::Rect> &digits) {
  std::vector<int> steps;
  for (size_t index = 1; index < digits.size(); ++index) {
    steps.push_back((digits[index].x + digits[index].width) - (digits[index - 1].x + digits[index - 1].width));
  }
  return steps;
}

// The median width of the broad ones of some cells, at least half as wide as the widest: a
// display's digits but for its 1s, which are only their right segments.
int broadWidth(const std::vector<cv::Rect> &cells) {
  int widest = 0;
  for (const auto &cell : cells) {
    widest = std::max(widest, cell.width);
  }
  std::vector<cv::Rect> broad;
  std::copy_if(cells.begin(), cells.end(), std::back_inserter(broad), [widest](const cv::Rect &cell) {
    return 2 * cell.width >= widest;
  });
  return medianWidth(broad);
}

// The window: the part of a prepared image inside its white border.
cv::Rect contentWindow(const cv::Mat &greyImage) {
  cv::Mat content = greyImage < 250;
  cv::Mat columns, rows;
  cv::reduce(content, columns, 0, cv::REDUCE_MAX);
  cv::reduce(content, rows, 1, cv::REDUCE_MAX);
  int left = 0, right = greyImage.cols - 1, top = 0, bottom = greyImage.rows - 1;
  while (left < right && columns.at<uint8_t>(0, left) == 0) {
    ++left;
  }
  while (right > left && columns.at<uint8_t>(0, right) == 0) {
    --right;
  }
  while (top < bottom && rows.at<uint8_t>(top, 0) == 0) {
    ++top;
  }
  while (bottom > top && rows.at<uint8_t>(bottom, 0) == 0) {
    --bottom;
  }
  return cv::Rect(left, top, right - left + 1, bottom - top + 1);
}

// Ink against the local background, dark and light (a prepared crop under uneven light can come
// out light on dark): the black-hat and top-hat over a third of the height (strokes below the
// morphological closing of the image, which fills them in, or above its opening), by Otsu's
// threshold. A closing follows the background where a plain dilation would take the brightest
// pixel around (glare) for it. Measured inside the window (contentWindow) only: the white border
// around it would be the background of every pixel near the edge.
std::array<cv::Mat, 2> localInks(const cv::Mat &greyImage, const cv::Rect &window) {
  const cv::Mat inside = greyImage(window);
  const int size = std::max(3, inside.rows / 3) | 1;
  const cv::Mat element = cv::getStructuringElement(cv::MORPH_RECT, cv::Size(size, size));
  std::array<cv::Mat, 2> inks{cv::Mat::zeros(greyImage.size(), CV_8U), cv::Mat::zeros(greyImage.size(), CV_8U)};
  const cv::MorphTypes kinds[2] = {cv::MORPH_BLACKHAT, cv::MORPH_TOPHAT};
  for (int polarity = 0; polarity < 2; ++polarity) {
    cv::Mat difference;
    cv::morphologyEx(inside, difference, kinds[polarity], element, cv::Point(-1, -1), 1, cv::BORDER_REPLICATE);
    cv::threshold(difference, inks[size_t(polarity)](window), 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
  }
  return inks;
}

// `expected` cells at the pitch of the digits that were found, the last one on the right-most
// digit (a display or counter spaces its digits evenly and always shows its last one; leading
// digits may be blank, and glare can run two together): the pitch is the median step between
// the right edges of neighbouring digits (right edges, because a seven-segment 1 is only its
// right segments). None when fewer than two digits were found or the cells would not fit.
std::vector<cv::Rect> pitchCells(const std::vector<cv::Rect> &found, int expected) {
  if (found.size() < 2) {
    return {};
  }
  const int width = broadWidth(found);
  std::vector<int> steps = rightEdgeSteps(found);
  steps.erase(
    std::remove_if(
      steps.begin(), steps.end(), [width](int step) { return step < width * 8 / 10 || step > width * 2; }),
    steps.end());
  if (steps.empty()) {
    return {};
  }
  const int pitch = median(steps);
  const cv::Rect &last = found.back();
  const int right = last.x + last.width;
  if (right - expected * pitch < -pitch / 2) {
    return {};
  }
  std::vector<cv::Rect> cells;
  for (int index = 0; index < expected; ++index) {
    const int x1 = right - (expected - 1 - index) * pitch;
    cells.emplace_back(std::max(0, x1 - pitch + 1), last.y, std::min(pitch, x1), last.height);
  }
  // Trusted only when at least half the cells hold a digit that was found there (the parts of a
  // photo of real wheels, half digits rolling in and out, give no steady pitch).
  int supported = 0;
  for (const auto &cell : cells) {
    const int x1 = cell.x + cell.width;
    supported += std::any_of(found.begin(), found.end(), [&](const cv::Rect &digit) {
      return std::abs(digit.x + digit.width - x1) <= pitch / 4 && digit.width <= pitch * 13 / 10;
    });
  }
  if (supported < std::max(2, (expected + 1) / 2)) {
    return {};
  }
  return cells;
}

// `expected` even cells over the window: everything inside the prepared image's white border.
// A meter's digit window spaces its digits evenly; the ink alone would miss a blank or thin edge
// digit.
std::vector<cv::Rect> evenCells(const cv::Rect &window, int expected) {
  std::vector<cv::Rect> cells;
  const double even = double(window.width) / expected;
  for (int cell = 0; cell < expected; ++cell) {
    const int x0 = window.x + int(cell * even + 0.5), x1 = window.x + int((cell + 1) * even + 0.5);
    cells.emplace_back(x0, window.y, std::max(1, x1 - x0), window.height);
  }
  return cells;
}

// The cells found and, when asked for, another layout (see pm_digit_cells).
struct Layouts {
  std::vector<cv::Rect> cells, alternative;
};

// Whether the digits found fall one to a cell of `cells`, each mostly inside its own: then the
// cells agree with what was found, and their full width is the better cut (components of real
// wheels can be half digits).
bool fallOnePerCell(const std::vector<cv::Rect> &digits, const std::vector<cv::Rect> &cells) {
  std::vector<bool> taken(cells.size(), false);
  for (const cv::Rect &digit : digits) {
    const int centre = digit.x + digit.width / 2;
    const auto cell = std::find_if(cells.begin(), cells.end(), [&](const cv::Rect &cell) {
      return centre >= cell.x && centre < cell.x + cell.width;
    });
    if (cell == cells.end() || taken[size_t(cell - cells.begin())]) {
      return false;
    }
    taken[size_t(cell - cells.begin())] = true;
    if (10 * (digit & *cell).width < 9 * digit.width) {
      return false;
    }
  }
  return true;
}

// On which sides of the window the digits found leave a margin of more than a quarter of a cell
// of the even split. On both: a display with margins around its digits, which the even split
// would cut out of step. (A counter's digits run to the window's edges.)
struct Margins {
  bool left = false, right = false;

  bool both() const { return left && right; }
  bool either() const { return left || right; }
};

Margins margins(const std::vector<cv::Rect> &digits, const std::vector<cv::Rect> &even) {
  if (digits.empty()) {
    return {};
  }
  const int quarter = even.front().width / 4;
  return {
    digits.front().x - even.front().x > quarter,
    (even.back().x + even.back().width) - (digits.back().x + digits.back().width) > quarter};
}

// Whether the digits found stand at one pitch: the steps between their right edges (a
// seven-segment 1 is only its right segments) within an eighth of their median. A display's
// digits do; the parts of a photo of real wheels, half digits rolling in and out, seldom.
bool evenlySpaced(const std::vector<cv::Rect> &digits) {
  if (digits.size() < 3) {
    return false;
  }
  const std::vector<int> steps = rightEdgeSteps(digits);
  const int middle = median(steps);
  return std::all_of(steps.begin(), steps.end(), [middle](int step) { return 8 * std::abs(step - middle) <= middle; });
}

// Components when they agree with the expected count and none is half as wide again as the
// median (two digits run together, the count made up by one split in two), with the window split
// evenly as the alternative. Else the even split, unless the components on ink against the local
// background (uneven light and glare defeat one global threshold), dark or light, leave margins
// on both sides of the digits, or on one side and stand at one pitch (evenlySpaced), and do not
// fall one per even cell: then they, with the even split as the alternative, when they agree with
// the expected count; else, with margins on both sides, the even split with cells at the pitch
// of the digits found as the alternative. No alternative unless `withAlternative` and 2 or more
// are expected.
Layouts digitLayouts(const cv::Mat &greyImage, int expected, bool withAlternative) {
  // Within a display's margins the 1s are told from digits split in two: the width to compare
  // with is that of the broad digits.
  auto agrees = [expected](const std::vector<cv::Rect> &cells, bool withinMargins = false) {
    if (int(cells.size()) != expected) {
      return false;
    }
    const int median = withinMargins ? broadWidth(cells) : medianWidth(cells);
    return expected <= 2 ||
           std::all_of(cells.begin(), cells.end(), [&](const cv::Rect &cell) { return 2 * cell.width <= 3 * median; });
  };
  withAlternative = withAlternative && expected >= 2;
  cv::Mat ink;
  cv::threshold(greyImage, ink, 0, 255, cv::THRESH_BINARY_INV | cv::THRESH_OTSU);
  Layouts layouts{componentCells(ink), {}};
  if (expected <= 0 || agrees(layouts.cells)) {
    if (withAlternative) {
      layouts.alternative = evenCells(contentWindow(greyImage), expected);
    }
    return layouts;
  }
  const cv::Rect window = contentWindow(greyImage);
  layouts.cells = evenCells(window, expected);
  // One cell is the window itself: whatever the local ink finds inside it falls in that cell.
  if (expected == 1) {
    return layouts;
  }
  std::vector<cv::Rect> nearest;
  for (const cv::Mat &inkOfOnePolarity : localInks(greyImage, window)) {
    std::vector<cv::Rect> found = componentCells(inkOfOnePolarity);
    if (fallOnePerCell(found, layouts.cells)) {
      return layouts;
    }
    const Margins around = margins(found, layouts.cells);
    if (!around.both() && !(around.either() && evenlySpaced(found))) {
      continue;
    }
    if (agrees(found, true)) {
      if (withAlternative) {
        layouts.alternative = layouts.cells;
      }
      layouts.cells = found;
      return layouts;
    }
    if (!around.both()) {
      continue;
    }
    if (nearest.empty() || std::abs(int(found.size()) - expected) < std::abs(int(nearest.size()) - expected)) {
      nearest = found;
    }
  }
  if (withAlternative) {
    layouts.alternative = pitchCells(nearest, expected);
  }
  return layouts;
}

// Copies cells into 4 ints each (x, y, width, height), as many as `capacity` holds, and sets
// `*count` to how many there are.
void writeCells(const std::vector<cv::Rect> &cells, int *rects, int capacity, int *count) {
  *count = int(cells.size());
  for (int index = 0; index < std::min(*count, capacity); ++index) {
    const cv::Rect &cell = cells[size_t(index)];
    rects[4 * index] = cell.x;
    rects[4 * index + 1] = cell.y;
    rects[4 * index + 2] = cell.width;
    rects[4 * index + 3] = cell.height;
  }
}

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

pm_status pm_digit_cells(
  const pm_image *prepared, int expected, int *rects, int capacity, int *count, int *alternative,
  int *alternative_count) {
  return guarded([&] {
    const Layouts layouts = digitLayouts(grey(prepared->mat), expected, alternative != nullptr);
    writeCells(layouts.cells, rects, capacity, count);
    if (alternative != nullptr) {
      writeCells(layouts.alternative, alternative, expected, alternative_count);
    }
    return PM_OK;
  });
}

pm_status pm_text_lines(const pm_image *image, int expected, int *rects) {
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

}  // extern "C"
