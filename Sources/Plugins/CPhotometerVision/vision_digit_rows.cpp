// Candidate rows of digits in a whole photo, by connected components. The photo is brought to a
// working size; ink is what an adaptive threshold finds darker (then, separately, lighter) than
// its surroundings, closed at two sizes so that a seven-segment digit's segments join. Components
// of a digit's shape (taller than wide, or up to 3.5 times as wide for digits that touch; not
// tiny, not half the photo, neither an outline nor a filled disc) are grouped into rows: a
// neighbour of similar height, overlapping vertically, less than a digit's height away. A
// component as wide as tall and thinly inked (a digit joined to a display's unlit segments, or a
// button's outline) may join a row but never makes one. A row of two digits or more is a
// candidate; its score grows with its digits and height and falls when its members' heights
// differ. A component as tall as two close lines is also cut in two (withStacksCut).
#include "vision_internal.hpp"

#include <cmath>

using namespace pm;

namespace {

constexpr int workingSide = 640;
// Margin past the row's first and last digits, in digit heights: a digit's width and a gap, so
// that a digit the grouping missed (joined to print above it, or of another height) is read too.
constexpr double sideMargin = 0.8;

// Whether two heights are one line's: the larger under 1.35 times the smaller. A row's members, a
// row and its repeat, and a cut piece and its neighbour are all judged by it.
bool alikeHeights(int a, int b) { return double(std::max(a, b)) / std::min(a, b) < 1.35; }

struct Character {
  cv::Rect box;
  // As wide as tall: a digit only beside others.
  bool square = false;
};

struct Row {
  cv::Rect box;
  std::vector<cv::Rect> members;
  int digits = 0;
  double score = 0;
};

std::vector<Character> characters(const cv::Mat &ink, int minimumHeight, int maximumHeight) {
  cv::Mat labels, stats, centroids;
  const int count = cv::connectedComponentsWithStats(ink, labels, stats, centroids, 8, CV_32S);
  std::vector<Character> found;
  for (int label = 1; label < count; ++label) {
    const cv::Rect box(
      stats.at<int>(label, cv::CC_STAT_LEFT), stats.at<int>(label, cv::CC_STAT_TOP),
      stats.at<int>(label, cv::CC_STAT_WIDTH), stats.at<int>(label, cv::CC_STAT_HEIGHT));
    const double area = stats.at<int>(label, cv::CC_STAT_AREA);
    const double aspect = double(box.width) / box.height;
    const double fill = area / box.area();
    // Digits that touch (a bold display's, or joined by a decimal point) make one wider component.
    // A button or a dot is as wide as tall; a digit is narrower, touching digits wider. A filled
    // patch is no digit, but a 1 is a solid bar, taken at any fill.
    // A digit joined to unlit segments beside it is as wide as tall too, but thinly inked.
    if (box.height < minimumHeight || box.height > maximumHeight || aspect <= 0.12 || aspect >= 3.5 || fill <= 0.2) {
      continue;
    }
    const bool square = aspect >= 0.85 && aspect <= 1.15;
    if (square ? fill < 0.45 : (aspect < 0.3 || fill < (aspect < 1 ? 0.7 : 0.55))) {
      found.push_back({box, square});
    }
  }
  return found;
}

// Whether `box` has a neighbour among `characters` of its height, level with it and less than its
// height away: a digit of the same line.
bool hasLineNeighbour(const cv::Rect &box, const std::vector<Character> &characters, size_t count) {
  for (size_t index = 0; index < count; ++index) {
    const cv::Rect &near = characters[index].box;
    const int gap = std::max(near.x - (box.x + box.width), box.x - (near.x + near.width));
    const int slack = near.height / 6;
    if (alikeHeights(near.height, box.height) && gap < near.height && gap > -near.width / 2 &&
        (std::abs(near.y - box.y) <= slack || std::abs(near.br().y - box.br().y) <= slack)) {
      return true;
    }
  }
  return false;
}

// A display's close lines joined by the closing make components as tall as both lines. One that
// a neighbour of about half its height is level with (top or bottom) is also taken as two
// characters cut at that height, when each piece has a digit of its own line beside it; the tall
// one stays, so rows of either kind are grouped.
std::vector<Character> withStacksCut(std::vector<Character> characters) {
  const size_t count = characters.size();
  for (size_t index = 0; index < count; ++index) {
    const cv::Rect tall = characters[index].box;
    for (size_t other = 0; other < count; ++other) {
      const cv::Rect near = characters[other].box;
      if (other == index || near.height < 0.35 * tall.height || near.height > 0.65 * tall.height) {
        continue;
      }
      const int slack = near.height / 6;
      int cut = 0;
      if (std::abs(near.y - tall.y) <= slack) {
        cut = near.height;
      } else if (std::abs(near.br().y - tall.br().y) <= slack) {
        cut = tall.height - near.height;
      }
      const cv::Rect top(tall.x, tall.y, tall.width, cut), bottom(tall.x, tall.y + cut, tall.width, tall.height - cut);
      if (cut == 0 || !hasLineNeighbour(top, characters, count) || !hasLineNeighbour(bottom, characters, count)) {
        continue;
      }
      for (const cv::Rect &piece : {top, bottom}) {
        const double aspect = double(piece.width) / piece.height;
        characters.push_back({piece, aspect >= 0.85 && aspect <= 1.15});
      }
      break;
    }
  }
  return characters;
}

std::vector<Row> rows(std::vector<Character> characters) {
  std::sort(characters.begin(), characters.end(), [](const Character &a, const Character &b) { return a.box.x < b.box.x; });
  std::vector<bool> used(characters.size(), false);
  std::vector<Row> found;
  for (size_t start = 0; start < characters.size(); ++start) {
    if (used[start]) {
      continue;
    }
    Row row;
    row.members.push_back(characters[start].box);
    used[start] = true;
    int squares = characters[start].square ? 1 : 0;
    cv::Rect last = characters[start].box;
    for (size_t next = start + 1; next < characters.size(); ++next) {
      if (used[next]) {
        continue;
      }
      const cv::Rect &box = characters[next].box;
      const int overlap = std::min(box.y + box.height, last.y + last.height) - std::max(box.y, last.y);
      const int gap = box.x - (last.x + last.width);
      if (alikeHeights(box.height, last.height) && overlap > 0.6 * std::min(box.height, last.height) &&
          gap < last.height && gap > -last.width / 2) {
        row.members.push_back(box);
        used[next] = true;
        squares += characters[next].square ? 1 : 0;
        last = box;
      }
    }
    // How many digits the row holds: a wide member counts for as many as fit its width.
    int digits = 0;
    for (const auto &member : row.members) {
      digits += std::max(1, int(std::lround(member.width / (0.65 * member.height))));
    }
    // One wide component alone is more often a patch of display or label than three digits.
    if (digits < 2 || (row.members.size() == 1 && digits < 3) || squares == int(row.members.size())) {
      continue;
    }
    double mean = 0;
    for (const auto &member : row.members) {
      mean += member.height;
      row.box |= member;
    }
    mean /= row.members.size();
    double spread = 0;
    for (const auto &member : row.members) {
      spread += std::abs(member.height - mean);
    }
    spread /= row.members.size() * mean;
    row.digits = digits;
    row.score = std::min(digits, 8) * mean * (1 - std::min(0.9, 3 * spread));
    found.push_back(row);
  }
  return found;
}

// The row as a rectangle turned by its slant (the line through its members' centres), a third
// of a digit's height of margin above and below and `sideMargin` at either end: 4 corners,
// clockwise from the top left.
std::vector<cv::Point2f> slanted(const Row &row) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double n = row.members.size();
  double height = 0;
  for (const auto &member : row.members) {
    const double x = member.x + member.width / 2.0, y = member.y + member.height / 2.0;
    sx += x, sy += y, sxx += x * x, sxy += x * y;
    height += member.height;
  }
  height /= n;
  const double spread = n * sxx - sx * sx;
  const double slope = spread > 1e-6 ? std::clamp((n * sxy - sx * sy) / spread, -0.6, 0.6) : 0.0;
  const cv::Point2d along(1 / std::sqrt(1 + slope * slope), slope / std::sqrt(1 + slope * slope));
  const cv::Point2d across(-along.y, along.x);
  const cv::Point2d centre(sx / n, sy / n);
  double low = 1e9, high = -1e9, top = 1e9, bottom = -1e9;
  for (const auto &member : row.members) {
    for (const cv::Point2d corner :
         {cv::Point2d(member.x, member.y), cv::Point2d(member.x + member.width, member.y),
          cv::Point2d(member.x, member.y + member.height), cv::Point2d(member.x + member.width, member.y + member.height)}) {
      const cv::Point2d offset = corner - centre;
      low = std::min(low, offset.dot(along)), high = std::max(high, offset.dot(along));
      top = std::min(top, offset.dot(across)), bottom = std::max(bottom, offset.dot(across));
    }
  }
  // The members' boxes are upright: turned, their corners overreach by the slant; take the digits'
  // mean height across instead.
  const double middle = (top + bottom) / 2, margin = height / 3;
  top = middle - height / 2 - margin, bottom = middle + height / 2 + margin;
  low -= sideMargin * height, high += sideMargin * height;
  std::vector<cv::Point2f> corners;
  for (const auto &[a, b] : {std::pair{low, top}, std::pair{high, top}, std::pair{high, bottom}, std::pair{low, bottom}}) {
    corners.emplace_back(centre + a * along + b * across);
  }
  return corners;
}

}  // namespace

extern "C" {

pm_status pm_digit_rows(
  const pm_image *image, int max_rows, int *rects, float *corners, float *scores, int *digits, int *count) {
  return guarded([&] {
    *count = 0;
    if (max_rows <= 0) {
      return PM_OK;
    }
    cv::Mat greyImage = grey(image->mat);
    if (greyImage.empty()) {
      return PM_OK;
    }
    const double scale = std::min(1.0, double(workingSide) / std::max(greyImage.cols, greyImage.rows));
    cv::Mat small;
    cv::resize(greyImage, small, cv::Size(), scale, scale, cv::INTER_AREA);
    const int side = std::max(small.cols, small.rows);
    // A row's crop searched again may be a few dozen pixels: the threshold's block and the
    // larger closing keep their least sizes (a photo of 160 pixels or more has larger ones).
    const int block = std::max(3, (side / 20) | 1);
    const int minimumHeight = std::max(10, side / 40), maximumHeight = small.rows / 2;
    std::vector<Row> candidates;
    for (const bool darkInk : {true, false}) {
      cv::Mat ink;
      cv::adaptiveThreshold(
        small, ink, 255, cv::ADAPTIVE_THRESH_MEAN_C, darkInk ? cv::THRESH_BINARY_INV : cv::THRESH_BINARY, block, 12);
      // Seven-segment digits' segments are apart by a few pixels at small sizes, more at large:
      // closed at two sizes, each digit is whole at one of them.
      for (const int reach : {5, std::max(3, side / 50)}) {
        cv::Mat closed;
        cv::morphologyEx(
          ink, closed, cv::MORPH_CLOSE, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(reach / 2 + 1, reach)));
        for (auto &row : rows(withStacksCut(characters(closed, minimumHeight, maximumHeight)))) {
          candidates.push_back(row);
        }
      }
    }
    std::sort(candidates.begin(), candidates.end(), [](const Row &a, const Row &b) { return a.score > b.score; });
    // Rows found in both polarities, or nested in a better one of their height, count once. A row
    // of another height is another row: a display's close lines joined by the larger closing
    // into one tall row overlap each line's own row.
    std::vector<Row> kept;
    for (const auto &row : candidates) {
      bool repeated = false;
      for (const auto &better : kept) {
        const double shared = (row.box & better.box).area();
        repeated = repeated || (shared > 0.5 * std::min(row.box.area(), better.box.area()) &&
                                alikeHeights(row.box.height, better.box.height));
      }
      if (!repeated) {
        kept.push_back(row);
      }
      if (int(kept.size()) == max_rows) {
        break;
      }
    }
    for (const auto &row : kept) {
      // A margin of a third of the row's height, in the photo's pixels.
      const int margin = row.box.height / 3;
      cv::Rect box(row.box.x - margin, row.box.y - margin, row.box.width + 2 * margin, row.box.height + 2 * margin);
      box &= cv::Rect(0, 0, small.cols, small.rows);
      rects[4 * *count + 0] = int(box.x / scale);
      rects[4 * *count + 1] = int(box.y / scale);
      rects[4 * *count + 2] = int(box.width / scale);
      rects[4 * *count + 3] = int(box.height / scale);
      scores[*count] = float(row.score / scale);
      digits[*count] = row.digits;
      const auto turned = slanted(row);
      for (int corner = 0; corner < 4; ++corner) {
        corners[8 * *count + 2 * corner] = float(turned[corner].x / scale);
        corners[8 * *count + 2 * corner + 1] = float(turned[corner].y / scale);
      }
      ++*count;
    }
    return PM_OK;
  });
}

pm_status pm_row_clear_side_print(const pm_image *image, int margin, pm_image **out) {
  return guarded([&] {
    *out = nullptr;
    cv::Mat cleared = image->mat.clone();
    const int height = cleared.rows, width = cleared.cols;
    if (margin <= 0 || height < 10 || width <= 2 * margin) {
      *out = wrap(cleared);
      return PM_OK;
    }
    // The digits' band is the middle three fifths of a row's height (a third of the digits'
    // height of margin above and below).
    const double digitHeight = 0.6 * height, middle = 0.5 * height, bandBottom = 0.8 * height;
    cv::Mat greyImage = grey(cleared).clone();
    if (lightOnDark(greyImage)) {
      cv::bitwise_not(greyImage, greyImage);
    }
    cv::Mat ink;
    cv::adaptiveThreshold(
      greyImage, ink, 255, cv::ADAPTIVE_THRESH_MEAN_C, cv::THRESH_BINARY_INV, std::max(3, (height / 2) | 1), 10);
    // Columns with a stroke's worth of ink in the band's lower half: under them is a digit.
    std::vector<bool> inkBelow(width, false);
    const cv::Mat lower = ink.rowRange(int(middle), int(bandBottom));
    const int stroke = std::max(2, int(digitHeight / 10));
    for (int x = 0; x < width; ++x) {
      inkBelow[x] = cv::countNonZero(lower.col(x)) >= stroke;
    }
    cv::Mat labels, stats, centroids;
    const int count = cv::connectedComponentsWithStats(ink, labels, stats, centroids, 8, CV_32S);
    const cv::Mat ground = ink == 0;
    const cv::Mat grow = cv::getStructuringElement(cv::MORPH_RECT, cv::Size(3, 3));
    for (int label = 1; label < count; ++label) {
      const cv::Rect box(
        stats.at<int>(label, cv::CC_STAT_LEFT), stats.at<int>(label, cv::CC_STAT_TOP),
        stats.at<int>(label, cv::CC_STAT_WIDTH), stats.at<int>(label, cv::CC_STAT_HEIGHT));
      const double centre = box.x + box.width / 2.0;
      const bool inMargin = centre < margin || centre >= width - margin;
      if (!inMargin || box.height >= 0.6 * digitHeight || box.y + box.height > middle ||
          std::any_of(inkBelow.begin() + box.x, inkBelow.begin() + box.x + box.width, [](bool below) { return below; })) {
        continue;
      }
      // Painted with the ground around it (a margin may hold the display's ground and the body's).
      const int reach = std::max(3, box.height / 2);
      const cv::Rect around = cv::Rect(box.x - reach, box.y - reach, box.width + 2 * reach, box.height + 2 * reach) &
        cv::Rect(0, 0, width, height);
      cv::Mat print = labels(around) == label;
      cv::dilate(print, print, grow);
      cv::Mat region = cleared(around);
      region.setTo(cv::mean(image->mat(around), ground(around)), print);
    }
    *out = wrap(cleared);
    return PM_OK;
  });
}

}  // extern "C"
