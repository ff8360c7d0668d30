// Colour histograms: the reference application's HSV method and the robust one.
#include "photometer_vision.h"
#include "vision_internal.hpp"

#include <cstring>

using namespace pm;

namespace {

constexpr int robustChromaBins = 8;
constexpr int robustGrid = 2;
constexpr int robustLayout = 8;
constexpr int robustSize =
  (1 + robustGrid * robustGrid) * robustChromaBins * robustChromaBins + robustLayout * robustLayout;

// Soft-binned chromaticity histogram of the balanced pixels in `region`, summing to 1.
void chromaHistogram(const cv::Mat &balanced, const cv::Mat &valid, float *out) {
  cv::Mat histogram = cv::Mat::zeros(robustChromaBins, robustChromaBins, CV_32F);
  for (int row = 0; row < balanced.rows; ++row) {
    const cv::Vec3f *pixels = balanced.ptr<cv::Vec3f>(row);
    const uint8_t *mask = valid.ptr<uint8_t>(row);
    for (int column = 0; column < balanced.cols; ++column) {
      if (!mask[column]) {
        continue;
      }
      const cv::Vec3f &pixel = pixels[column];
      const float sum = pixel[0] + pixel[1] + pixel[2];
      // Chromaticity around grey (1/3, 1/3), spread over +-0.25: greys and beiges get the bins.
      const float red = pixel[2] / sum - 1.0f / 3, green = pixel[1] / sum - 1.0f / 3;
      const float x = std::clamp((red + 0.25f) / 0.5f * robustChromaBins - 0.5f, 0.0f, robustChromaBins - 1.0f);
      const float y = std::clamp((green + 0.25f) / 0.5f * robustChromaBins - 0.5f, 0.0f, robustChromaBins - 1.0f);
      // Bilinear votes: a colour on a bin edge lands in both bins, not in one by chance.
      const int x0 = int(x), y0 = int(y);
      const int x1 = std::min(x0 + 1, robustChromaBins - 1), y1 = std::min(y0 + 1, robustChromaBins - 1);
      const float fx = x - x0, fy = y - y0;
      histogram.at<float>(y0, x0) += (1 - fx) * (1 - fy);
      histogram.at<float>(y0, x1) += fx * (1 - fy);
      histogram.at<float>(y1, x0) += (1 - fx) * fy;
      histogram.at<float>(y1, x1) += fx * fy;
    }
  }
  cv::GaussianBlur(histogram, histogram, cv::Size(3, 3), 0.8);
  const double total = cv::sum(histogram)[0];
  for (int index = 0; index < robustChromaBins * robustChromaBins; ++index) {
    out[index] = total > 0 ? float(histogram.at<float>(index / robustChromaBins, index % robustChromaBins) / total) : 0;
  }
}

void robustHistogram(const cv::Mat &image, float *out) {
  // Work on a small copy: colour statistics need few pixels.
  cv::Mat small;
  const double shrink = std::min(1.0, 160.0 / std::max(image.cols, image.rows));
  cv::resize(image, small, cv::Size(), shrink, shrink, cv::INTER_AREA);
  cv::Mat floats;
  small.convertTo(floats, CV_32FC3, 1.0 / 255);
  // Grey world: divide each channel by its mean, which removes a white-balance cast and exposure.
  cv::Scalar mean = cv::mean(floats);
  std::vector<cv::Mat> channels;
  cv::split(floats, channels);
  for (int channel = 0; channel < 3; ++channel) {
    channels[channel] /= std::max(mean[channel], 1e-3);
  }
  cv::Mat balanced;
  cv::merge(channels, balanced);
  // Too dark or clipped pixels carry no colour.
  cv::Mat brightness;
  cv::cvtColor(small, brightness, cv::COLOR_BGR2GRAY);
  cv::Mat valid = (brightness > 20) & (brightness < 250);

  chromaHistogram(balanced, valid, out);
  float *cursor = out + robustChromaBins * robustChromaBins;
  for (int gridRow = 0; gridRow < robustGrid; ++gridRow) {
    for (int gridColumn = 0; gridColumn < robustGrid; ++gridColumn) {
      cv::Rect cell(
        gridColumn * small.cols / robustGrid, gridRow * small.rows / robustGrid, small.cols / robustGrid,
        small.rows / robustGrid);
      chromaHistogram(balanced(cell), valid(cell), cursor);
      cursor += robustChromaBins * robustChromaBins;
    }
  }
  // The layout of light and dark, relative to the mean: where the window, the print and the body are.
  cv::Mat layout;
  cv::resize(brightness, layout, cv::Size(robustLayout, robustLayout), 0, 0, cv::INTER_AREA);
  layout.convertTo(layout, CV_32F);
  const double layoutMean = std::max(cv::mean(layout)[0], 1.0);
  for (int index = 0; index < robustLayout * robustLayout; ++index) {
    cursor[index] = float(layout.at<float>(index / robustLayout, index % robustLayout) / layoutMean) /
      float(robustLayout * robustLayout);
  }
  // Parts weigh alike: the whole image, the four quarters together, the layout.
  for (int index = 0; index < robustChromaBins * robustChromaBins; ++index) {
    out[index] *= 1.0f / 3;
  }
  for (int index = robustChromaBins * robustChromaBins; index < robustSize - robustLayout * robustLayout; ++index) {
    out[index] *= 1.0f / (3 * robustGrid * robustGrid);
  }
  for (int index = robustSize - robustLayout * robustLayout; index < robustSize; ++index) {
    out[index] *= 1.0f / 3;
  }
}

}  // namespace

extern "C" {

int pm_histogram_size(pm_histogram_mode mode) {
  return mode == PM_HISTOGRAM_SEED ? 50 * 60 : robustSize;
}

pm_status pm_histogram(const pm_image *image, pm_histogram_mode mode, float *out) {
  return guarded([&] {
    cv::Mat colour = image->mat;
    if (colour.channels() == 1) {
      cv::cvtColor(colour, colour, cv::COLOR_GRAY2BGR);
    }
    if (mode == PM_HISTOGRAM_ROBUST) {
      robustHistogram(colour, out);
      return PM_OK;
    }
    cv::Mat hsv;
    cv::cvtColor(colour, hsv, cv::COLOR_BGR2HSV);
    const int channels[] = {0, 1};
    const int bins[] = {50, 60};
    const float hueRange[] = {0, 180}, saturationRange[] = {0, 256};
    const float *ranges[] = {hueRange, saturationRange};
    cv::Mat histogram;
    cv::calcHist(&hsv, 1, channels, cv::Mat(), histogram, 2, bins, ranges, true, false);
    cv::normalize(histogram, histogram, 0, 1, cv::NORM_MINMAX);
    std::memcpy(out, histogram.ptr<float>(), sizeof(float) * 50 * 60);
    return PM_OK;
  });
}

double pm_histogram_compare(const float *a, const float *b, int count, pm_compare_method method) {
  const int methods[] = {cv::HISTCMP_CORREL, cv::HISTCMP_CHISQR, cv::HISTCMP_INTERSECT, cv::HISTCMP_BHATTACHARYYA};
  cv::Mat first(1, count, CV_32F, const_cast<float *>(a)), second(1, count, CV_32F, const_cast<float *>(b));
  try {
    return cv::compareHist(first, second, methods[method]);
  } catch (const cv::Exception &error) {
    lastError = error.what();
    return 0;
  }
}

}  // extern "C"
