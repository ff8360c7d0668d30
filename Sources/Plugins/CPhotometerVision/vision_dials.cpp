// A pointer dial's reading by classic geometry. The region is resized to a square (which also undoes
// the foreshortening of a dial seen from the side along an image axis) and turned into a map of how
// far each pixel's colour is from the dial face's (the median near the centre): the pointer, the
// ticks and the numbers stand out whatever their colours. The face's extent gives the dial's radius.
// The pointer is the ray from the centre along which the map sums highest over the middle radii
// (inside the numbers, outside the hub), straightened to the pointer's own middle line, since a
// hand-drawn region's centre is never exact. The ticks and numbers, ten-fold symmetric, tell how far
// the dials are turned in the photo: the phase of their rings' ten-fold harmonic, summed over the
// meter's dials, which a photo turns alike.
#include "vision_internal.hpp"

#include <cmath>
#include <complex>

using namespace pm;

namespace {

// The square a dial's box is resized to. (At 96 pixels a division's tip moved about 2 pixels, and
// the finest dial's digit flipped wherever its pointer stood near a division.)
constexpr int side = 160;
constexpr double pi = 3.14159265358979323846;

// The colour distance map of a square BGR image from its face colour (the median of the disc).
cv::Mat faceDistance(const cv::Mat &square) {
  cv::Mat lab;
  cv::Mat floats;
  square.convertTo(floats, CV_32F, 1.0 / 255);
  cv::cvtColor(floats, lab, cv::COLOR_BGR2Lab);
  std::vector<float> channel[3];
  const float half = side / 2.0f;
  for (int row = 0; row < side; ++row) {
    for (int column = 0; column < side; ++column) {
      const float dx = column + 0.5f - half, dy = row + 0.5f - half;
      if (dx * dx + dy * dy < 0.2f * half * half) {
        const auto pixel = lab.at<cv::Vec3f>(row, column);
        for (int index = 0; index < 3; ++index) {
          channel[index].push_back(pixel[index]);
        }
      }
    }
  }
  cv::Vec3f face;
  for (int index = 0; index < 3; ++index) {
    auto middle = channel[index].begin() + channel[index].size() / 2;
    std::nth_element(channel[index].begin(), middle, channel[index].end());
    face[index] = *middle;
  }
  cv::Mat distance(side, side, CV_32F);
  for (int row = 0; row < side; ++row) {
    for (int column = 0; column < side; ++column) {
      distance.at<float>(row, column) = float(cv::norm(lab.at<cv::Vec3f>(row, column) - face));
    }
  }
  cv::GaussianBlur(distance, distance, cv::Size(3, 3), 0);
  return distance;
}

// The dial's radius: its rim's, or else the largest radius at which most of the circle around
// `centre` still has the face's colour (ticks and numbers break it up, the meter's body around the
// dial ends it), between half and all of the region's half side.
double dialRadius(const cv::Mat &map, cv::Point2d centre) {
  const double half = side / 2.0;
  double radius = half;
  // The rim: the first circle inked nearly all round, allowing the two pixels either way by which a
  // dial seen at a slant or a region drawn off-centre moves it. Without one, the face's colour
  // running on into a body of the same colour would put the ring of marks on the neighbours.
  for (double r = 0.6 * half; r <= half - 2; r += 1) {
    int inked = 0, count = 0;
    for (int degrees = 0; degrees < 360; degrees += 3) {
      const double angle = degrees * pi / 180;
      bool any = false;
      for (double band = r - 2; band <= r + 2 && !any; band += 1) {
        const int column = int(std::lround(centre.x + band * std::sin(angle) - 0.5));
        const int row = int(std::lround(centre.y - band * std::cos(angle) - 0.5));
        any = column >= 0 && row >= 0 && column < side && row < side && map.at<float>(row, column) >= 20;
      }
      inked += any;
      ++count;
    }
    if (inked >= 0.75 * count) {
      return r;
    }
  }
  for (double r = 0.5 * half; r <= half; r += 1) {
    int face = 0, count = 0;
    for (int degrees = 0; degrees < 360; degrees += 3) {
      const double angle = degrees * pi / 180;
      const int column = int(std::lround(centre.x + r * std::sin(angle) - 0.5));
      const int row = int(std::lround(centre.y - r * std::cos(angle) - 0.5));
      if (column >= 0 && row >= 0 && column < side && row < side) {
        face += map.at<float>(row, column) < 20;
        ++count;
      }
    }
    if (count > 0 && face < count / 3) {
      return std::max(0.5 * half, r - 1);
    }
  }
  return radius;
}

// How far apart two directions are, in degrees within [0, 180].
double degreesApart(double a, double b) {
  const double apart = std::fmod(std::abs(a - b), 360.0);
  return std::min(apart, 360 - apart);
}

// Bilinear sample of the map; 0 outside.
double sample(const cv::Mat &map, double column, double row) {
  column -= 0.5, row -= 0.5;
  const int left = int(std::floor(column)), top = int(std::floor(row));
  if (left < 0 || top < 0 || left + 1 >= side || top + 1 >= side) {
    return 0;
  }
  const double u = column - left, v = row - top;
  return (1 - v) * ((1 - u) * map.at<float>(top, left) + u * map.at<float>(top, left + 1)) +
    v * ((1 - u) * map.at<float>(top + 1, left) + u * map.at<float>(top + 1, left + 1));
}

// The pointer's own axis near the ray at `degrees` from `centre`: the middle of the pointer's
// cross-section at each radius, a line fitted through them. A centre one pixel off turns the best
// ray by degrees; the pointer's middle line does not depend on the centre. The radii stop where a
// cross-section holds over `joined` times the least ink of those before it: another mark (a
// number, where the radius was taken too large) has joined the pointer's and would pull the line.
double pointerAxis(const cv::Mat &map, cv::Point2d centre, double degrees, double inner, double outer,
                   double radius) {
  const double angle = degrees * pi / 180;
  const cv::Point2d along(std::sin(angle), -std::cos(angle)), across(std::cos(angle), std::sin(angle));
  const double reach = 0.15 * radius;
  const double joined = 1.5;
  double sr = 0, sc = 0, srr = 0, src = 0, count = 0, least = HUGE_VAL;
  for (int step = 0; step < 12; ++step) {
    const double r = inner + (outer - inner) * step / 11;
    std::vector<double> values;
    for (double d = -reach; d <= reach; d += 0.5) {
      const cv::Point2d at = centre + r * along + d * across;
      values.push_back(sample(map, at.x, at.y));
    }
    const auto [low, high] = std::minmax_element(values.begin(), values.end());
    const double floor = *low + 0.5 * (*high - *low);
    double weight = 0, middle = 0;
    for (size_t index = 0; index < values.size(); ++index) {
      const double excess = std::max(0.0, values[index] - floor);
      weight += excess;
      middle += excess * (-reach + 0.5 * index);
    }
    if (weight <= 0) {
      continue;
    }
    if (count >= 4 && weight > joined * least) {
      break;
    }
    least = std::min(least, weight);
    middle /= weight;
    sr += r, sc += middle, srr += r * r, src += r * middle, ++count;
  }
  const double spread = count * srr - sr * sr;
  if (count < 4 || spread <= 0) {
    return degrees;
  }
  const double slope = (count * src - sr * sc) / spread;
  const double turned = std::atan(slope) * 180 / pi;
  return std::abs(turned) < 10 ? degrees + turned : degrees;
}

// The map summed along the ray at `degrees` (clockwise from up) between two radii.
double raySum(const cv::Mat &map, cv::Point2d centre, double degrees, double inner, double outer) {
  const double angle = degrees * pi / 180;
  const double sine = std::sin(angle), cosine = std::cos(angle);
  double sum = 0;
  constexpr int samples = 12;
  for (int step = 0; step < samples; ++step) {
    const double radius = inner + (outer - inner) * step / (samples - 1);
    sum += sample(map, centre.x + radius * sine, centre.y - radius * cosine);
  }
  return sum / samples;
}

// The ten-fold harmonic of the ring where ticks and numbers are (the pointer's own sector left
// out): a ring of marks at 36-degree steps turned clockwise by t has its phase at -10 t, so it
// tells how far the dial is turned in the photo, within 18 degrees. Its size grows with the marks'
// contrast, so a plain ring adds little to a meter's sum.
std::complex<double> tenFold(const cv::Mat &map, cv::Point2d centre, double radius, double pointer) {
  std::complex<double> harmonic = 0;
  for (int degrees = 0; degrees < 360; ++degrees) {
    if (degreesApart(degrees, pointer) >= 20) {
      const double ring = raySum(map, centre, degrees, 0.62 * radius, 0.98 * radius);
      harmonic += ring * std::polar(1.0, -10.0 * degrees * pi / 180);
    }
  }
  return harmonic;
}

// One dial measured in its region (within the image): the pointer's direction in the square
// (degrees clockwise from up), how strongly the map shows it, the strongest rival ray and the
// ring's ten-fold harmonic.
struct Measure {
  double pointer = 0, strength = 0, rival = 0;
  std::complex<double> harmonic = 0;
};

Measure measure(const pm_image *image, const cv::Rect &area) {
  cv::Mat colour = image->mat(area);
  if (colour.channels() == 1) {
    cv::cvtColor(colour, colour, cv::COLOR_GRAY2BGR);
  }
  cv::Mat square;
  cv::resize(colour, square, cv::Size(side, side), 0, 0, cv::INTER_AREA);
  const cv::Mat map = faceDistance(square);

  const double half = side / 2.0;
  const cv::Point2d middle(half, half);
  const double radius = dialRadius(map, middle), inner = 0.24 * radius, outer = 0.5 * radius;
  Measure result;
  double coarse = 0, best = -1;
  for (int degrees = 0; degrees < 360; degrees += 2) {
    const double sum = raySum(map, middle, degrees, inner, outer);
    if (sum > best) {
      best = sum, coarse = degrees;
    }
  }
  // Quarter-degree steps around the best, then the pointer's own middle line.
  double fine = coarse;
  result.strength = best;
  for (double degrees = coarse - 3; degrees <= coarse + 3; degrees += 0.25) {
    const double sum = raySum(map, middle, degrees, inner, outer);
    if (sum > result.strength) {
      fine = degrees, result.strength = sum;
    }
  }
  result.pointer = pointerAxis(map, middle, fine, inner, outer, radius);
  // The strongest ray away from the pointer: a second pointer-like mark makes the reading doubtful.
  for (int degrees = 0; degrees < 360; degrees += 2) {
    if (degreesApart(degrees, result.pointer) > 40) {
      result.rival = std::max(result.rival, raySum(map, middle, degrees, inner, outer));
    }
  }
  result.harmonic = tenFold(map, middle, radius, result.pointer);
  return result;
}

}  // namespace

extern "C" {

pm_status pm_dials_read(const pm_image *image, const pm_dial_region *dials, int count, pm_dial_reading *out) {
  return guarded([&] {
    const cv::Rect whole(0, 0, image->mat.cols, image->mat.rows);
    std::vector<cv::Rect> areas;
    for (int index = 0; index < count; ++index) {
      areas.push_back(cv::Rect(dials[index].x, dials[index].y, dials[index].width, dials[index].height) & whole);
      if (areas.back().width < 8 || areas.back().height < 8) {
        const std::string message =
          "dial " + std::to_string(index + 1) + "'s region must lie in the image and be at least 8 pixels a side";
        return fail(PM_BAD_ARGUMENT, message.c_str());
      }
    }
    std::vector<Measure> measures;
    std::complex<double> harmonic = 0;
    for (const cv::Rect &area : areas) {
      measures.push_back(measure(image, area));
      harmonic += measures.back().harmonic;
    }
    // One meter's dials are turned alike in the photo: their harmonics summed tell it better than
    // any one ring (a turn of 17 degrees read as -17 on one dial moves its reading by a division).
    const double turn = std::abs(harmonic) > 0 ? -std::arg(harmonic) * 180 / pi / 10 : 0;
    for (int index = 0; index < count; ++index) {
      const Measure &dial = measures[size_t(index)];
      double degrees = std::fmod(std::fmod(dial.pointer - turn, 360.0) + 360.0, 360.0);
      double value = degrees / 36;
      if (dials[index].counter_clockwise) {
        value = std::fmod(10 - value, 10.0);
      }
      out[index].value = value >= 10 ? 0 : value;
      // Contrast: a pointer whose colour differs from the face by less than ~15 Lab units is hardly one.
      const double contrast = std::clamp(dial.strength / 15.0, 0.0, 1.0);
      out[index].confidence =
        dial.strength > 0 ? std::clamp(1 - dial.rival / dial.strength, 0.0, 1.0) * contrast : 0;
    }
    return PM_OK;
  });
}

}  // extern "C"
