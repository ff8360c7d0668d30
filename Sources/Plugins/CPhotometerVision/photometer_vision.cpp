// The OpenCV side of photometer_vision.h. Every entry point runs its body through `guarded`, which
// turns a C++ exception into a status and keeps its text for pm_last_error: an exception that
// reached Swift would abort the process.
#include "photometer_vision.h"

#include <opencv2/calib3d.hpp>
#include <opencv2/core.hpp>
#include <opencv2/features2d.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

struct pm_image {
  cv::Mat mat;
  double scale = 1;
};

struct pm_keypoints {
  std::vector<cv::Point2f> points;
  cv::Mat descriptors;
  cv::Size size;
  double scale = 1;
};

struct pm_keypoint_index {
  cv::Mat descriptors;
  // For each row of `descriptors`: its reference and its keypoint there.
  std::vector<int> owner;
  std::vector<int> local;
  std::vector<std::vector<cv::Point2f>> points;
  std::vector<double> scales;
  std::vector<cv::Size> sizes;
  int references = 0;
  // Locality-sensitive hashing: each table keys a descriptor by a fixed random choice of its
  // bits; rows sharing a key sit together (offsets into `rows`, as in a CSR matrix).
  std::vector<std::vector<int>> keyBits;
  std::vector<std::vector<int>> offsets;
  std::vector<std::vector<int>> rows;
};

namespace {

thread_local std::string lastError;

template <typename Body> pm_status guarded(Body body) {
  try {
    lastError.clear();
    return body();
  } catch (const cv::Exception &error) {
    lastError = error.what();
    return PM_FAILED;
  } catch (const std::exception &error) {
    lastError = error.what();
    return PM_FAILED;
  } catch (...) {
    lastError = "unknown C++ exception";
    return PM_FAILED;
  }
}

pm_status fail(pm_status status, const char *message) {
  lastError = message;
  return status;
}

cv::Mat grey(const cv::Mat &image) {
  if (image.channels() == 1) {
    return image;
  }
  cv::Mat result;
  cv::cvtColor(image, result, cv::COLOR_BGR2GRAY);
  return result;
}

pm_image *wrap(cv::Mat mat, double scale = 1) {
  auto image = new pm_image;
  image->mat = std::move(mat);
  image->scale = scale;
  return image;
}

// The central half of an image, where a photographed meter usually is.
cv::Mat centre(const cv::Mat &image) {
  return image(cv::Rect(image.cols / 4, image.rows / 4, std::max(1, image.cols / 2), std::max(1, image.rows / 2)));
}

// Grey levels at two percentiles of an 8-bit grey image.
std::pair<int, int> percentiles(const cv::Mat &greyImage, double low, double high) {
  int histogram[256] = {0};
  for (int row = 0; row < greyImage.rows; ++row) {
    const uint8_t *pixels = greyImage.ptr<uint8_t>(row);
    for (int column = 0; column < greyImage.cols; ++column) {
      histogram[pixels[column]]++;
    }
  }
  const double total = double(greyImage.total());
  int lowLevel = 0, highLevel = 255;
  double seen = 0;
  bool lowFound = false;
  for (int level = 0; level < 256; ++level) {
    seen += histogram[level];
    if (!lowFound && seen >= low * total) {
      lowLevel = level;
      lowFound = true;
    }
    if (seen >= high * total) {
      highLevel = level;
      break;
    }
  }
  return {lowLevel, highLevel};
}

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

constexpr int cellWidth = 16, cellHeight = 24, pixelWidth = 8, pixelHeight = 12;

const cv::HOGDescriptor &cellDescriptor() {
  static const cv::HOGDescriptor descriptor(
    cv::Size(cellWidth, cellHeight), cv::Size(8, 8), cv::Size(4, 4), cv::Size(4, 4), 9);
  return descriptor;
}

int hogSize() {
  return int(cellDescriptor().getDescriptorSize());
}

constexpr int hashTables = 10, maxBucket = 150;

// Key bits: 16 up to 150,000 descriptors (about 100 references), one more per doubling beyond,
// so that buckets keep their size, and a query its cost, as references are added.
int hashBitsFor(int rows) {
  int bits = 16;
  while (bits < 24 && (rows >> (bits - 16)) > 150000) {
    ++bits;
  }
  return bits;
}

uint32_t hashKey(const uint8_t *descriptor, const std::vector<int> &bits) {
  uint32_t key = 0;
  for (int bit : bits) {
    key = (key << 1) | ((descriptor[bit >> 3] >> (bit & 7)) & 1);
  }
  return key;
}

void buildHashTables(pm_keypoint_index &index) {
  cv::RNG random(20261122);
  const int rowCount = index.descriptors.rows;
  const int hashBits = hashBitsFor(rowCount);
  for (int table = 0; table < hashTables; ++table) {
    std::vector<int> bits(static_cast<size_t>(hashBits), 0);
    for (int &bit : bits) {
      bit = random.uniform(0, 256);
    }
    std::vector<int> counts((1 << hashBits) + 1, 0);
    std::vector<uint32_t> keys(size_t(rowCount), 0);
    for (int row = 0; row < rowCount; ++row) {
      keys[size_t(row)] = hashKey(index.descriptors.ptr<uint8_t>(row), bits);
      counts[keys[size_t(row)] + 1]++;
    }
    std::partial_sum(counts.begin(), counts.end(), counts.begin());
    std::vector<int> rows(static_cast<size_t>(rowCount), 0);
    std::vector<int> cursor(counts.begin(), counts.end() - 1);
    for (int row = 0; row < rowCount; ++row) {
      rows[size_t(cursor[keys[size_t(row)]]++)] = row;
    }
    index.keyBits.push_back(std::move(bits));
    index.offsets.push_back(std::move(counts));
    index.rows.push_back(std::move(rows));
  }
}

int hamming(const uint8_t *a, const uint8_t *b) {
  uint64_t x[4], y[4];
  std::memcpy(x, a, 32);
  std::memcpy(y, b, 32);
  return __builtin_popcountll(x[0] ^ y[0]) + __builtin_popcountll(x[1] ^ y[1]) + __builtin_popcountll(x[2] ^ y[2]) +
    __builtin_popcountll(x[3] ^ y[3]);
}

}  // namespace

extern "C" {

const char *pm_last_error(void) {
  return lastError.c_str();
}

// MARK: Images

pm_status pm_image_decode(const uint8_t *data, size_t size, int max_side, pm_image **out) {
  return guarded([&] {
    *out = nullptr;
    if (data == nullptr || size == 0) {
      return fail(PM_BAD_IMAGE, "the image is empty");
    }
    cv::Mat bytes(1, int(size), CV_8U, const_cast<uint8_t *>(data));
    cv::Mat image = cv::imdecode(bytes, cv::IMREAD_COLOR);
    if (image.empty()) {
      return fail(PM_BAD_IMAGE, "the image does not decode");
    }
    double scale = 1;
    const int longer = std::max(image.cols, image.rows);
    if (max_side > 0 && longer > max_side) {
      scale = double(max_side) / longer;
      cv::resize(image, image, cv::Size(), scale, scale, cv::INTER_AREA);
    }
    *out = wrap(image, scale);
    return PM_OK;
  });
}

pm_status pm_image_from_pixels(const uint8_t *pixels, int width, int height, int channels, pm_image **out) {
  return guarded([&] {
    *out = nullptr;
    if (width <= 0 || height <= 0 || (channels != 1 && channels != 3)) {
      return fail(PM_BAD_ARGUMENT, "an image needs a positive size and 1 or 3 channels");
    }
    cv::Mat image(height, width, channels == 1 ? CV_8UC1 : CV_8UC3, const_cast<uint8_t *>(pixels));
    *out = wrap(image.clone());
    return PM_OK;
  });
}

void pm_image_free(pm_image *image) {
  delete image;
}

int pm_image_width(const pm_image *image) {
  return image->mat.cols;
}

int pm_image_height(const pm_image *image) {
  return image->mat.rows;
}

int pm_image_channels(const pm_image *image) {
  return image->mat.channels();
}

double pm_image_scale(const pm_image *image) {
  return image->scale;
}

void pm_image_pixels(const pm_image *image, uint8_t *out) {
  const size_t rowBytes = size_t(image->mat.cols) * image->mat.elemSize();
  for (int row = 0; row < image->mat.rows; ++row) {
    std::memcpy(out + row * rowBytes, image->mat.ptr(row), rowBytes);
  }
}

pm_status pm_image_crop(const pm_image *image, int x, int y, int width, int height, pm_image **out) {
  return guarded([&] {
    *out = nullptr;
    cv::Rect area = cv::Rect(x, y, width, height) & cv::Rect(0, 0, image->mat.cols, image->mat.rows);
    if (area.width <= 0 || area.height <= 0) {
      return fail(PM_BAD_ARGUMENT, "the region lies outside the image");
    }
    *out = wrap(image->mat(area).clone());
    return PM_OK;
  });
}

pm_status pm_image_warp(const pm_image *image, const float corners[8], int width, int height, pm_image **out) {
  return guarded([&] {
    *out = nullptr;
    if (width <= 0 || height <= 0 || width > 8192 || height > 8192) {
      return fail(PM_BAD_ARGUMENT, "the straightened size must be 1 to 8192 pixels a side");
    }
    const cv::Point2f source[4] = {
      {corners[0], corners[1]}, {corners[2], corners[3]}, {corners[4], corners[5]}, {corners[6], corners[7]}};
    const cv::Point2f target[4] = {
      {0, 0}, {float(width), 0}, {float(width), float(height)}, {0, float(height)}};
    cv::Mat transform = cv::getPerspectiveTransform(source, target);
    cv::Mat result;
    cv::warpPerspective(image->mat, result, transform, cv::Size(width, height), cv::INTER_LINEAR, cv::BORDER_REPLICATE);
    *out = wrap(result);
    return PM_OK;
  });
}

pm_status pm_image_encode(const pm_image *image, const char *extension, int quality, uint8_t **out, size_t *size) {
  return guarded([&] {
    *out = nullptr;
    *size = 0;
    std::vector<uint8_t> bytes;
    std::vector<int> parameters;
    if (std::strcmp(extension, ".jpg") == 0) {
      parameters = {cv::IMWRITE_JPEG_QUALITY, quality};
    }
    if (!cv::imencode(extension, image->mat, bytes, parameters)) {
      return fail(PM_FAILED, "the image does not encode");
    }
    *out = static_cast<uint8_t *>(std::malloc(bytes.size()));
    std::memcpy(*out, bytes.data(), bytes.size());
    *size = bytes.size();
    return PM_OK;
  });
}

void pm_free(void *pointer) {
  std::free(pointer);
}

pm_status pm_image_dominant_colour(const pm_image *image, uint32_t *rgb) {
  return guarded([&] {
    cv::Mat thumbnail;
    cv::resize(centre(image->mat), thumbnail, cv::Size(32, 32), 0, 0, cv::INTER_AREA);
    if (thumbnail.channels() == 1) {
      cv::cvtColor(thumbnail, thumbnail, cv::COLOR_GRAY2BGR);
    }
    cv::Mat samples = thumbnail.reshape(1, int(thumbnail.total()));
    samples.convertTo(samples, CV_32F);
    cv::Mat labels, centres;
    cv::setRNGSeed(7);
    cv::kmeans(
      samples, 3, labels, cv::TermCriteria(cv::TermCriteria::EPS + cv::TermCriteria::COUNT, 20, 1.0), 2,
      cv::KMEANS_PP_CENTERS, centres);
    std::vector<int> sizes(3, 0);
    for (int index = 0; index < labels.rows; ++index) {
      sizes[labels.at<int>(index)]++;
    }
    const int largest = int(std::max_element(sizes.begin(), sizes.end()) - sizes.begin());
    auto channel = [&](int index) { return uint32_t(std::clamp(centres.at<float>(largest, index), 0.0f, 255.0f)); };
    *rgb = (channel(2) << 16) | (channel(1) << 8) | channel(0);
    return PM_OK;
  });
}

pm_status pm_image_quality(const pm_image *image, pm_quality *quality) {
  return guarded([&] {
    cv::Mat greyImage = grey(image->mat);
    cv::Mat resized;
    const double scale = 200.0 / std::max(1, greyImage.rows);
    cv::resize(greyImage, resized, cv::Size(), scale, scale, scale < 1 ? cv::INTER_AREA : cv::INTER_LINEAR);
    cv::Mat laplacian;
    cv::Laplacian(resized, laplacian, CV_64F);
    cv::Scalar mean, deviation;
    cv::meanStdDev(laplacian, mean, deviation);
    quality->sharpness = deviation[0] * deviation[0];
    quality->glare = double(cv::countNonZero(greyImage >= 250)) / double(std::max<size_t>(1, greyImage.total()));
    auto [low, high] = percentiles(greyImage, 0.05, 0.95);
    quality->contrast = high - low;
    return PM_OK;
  });
}

// MARK: Colour histograms

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

// MARK: Keypoints

pm_status pm_keypoints_detect(const pm_image *image, int max_features, pm_keypoints **out) {
  return guarded([&] {
    *out = nullptr;
    auto orb = cv::ORB::create(max_features, 1.2f, 8, 15, 0, 2, cv::ORB::HARRIS_SCORE, 15);
    std::vector<cv::KeyPoint> keypoints;
    auto result = std::make_unique<pm_keypoints>();
    orb->detectAndCompute(grey(image->mat), cv::noArray(), keypoints, result->descriptors);
    cv::KeyPoint::convert(keypoints, result->points);
    result->scale = image->scale;
    result->size = image->mat.size();
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

pm_status pm_keypoint_index_build(pm_keypoints *const *references, int count, pm_keypoint_index **out) {
  return guarded([&] {
    *out = nullptr;
    auto index = std::make_unique<pm_keypoint_index>();
    index->references = count;
    std::vector<cv::Mat> parts;
    for (int reference = 0; reference < count; ++reference) {
      index->points.push_back(references[reference]->points);
      index->scales.push_back(references[reference]->scale);
      index->sizes.push_back(references[reference]->size);
      if (references[reference]->descriptors.empty()) {
        continue;
      }
      parts.push_back(references[reference]->descriptors);
      index->owner.insert(index->owner.end(), size_t(references[reference]->descriptors.rows), reference);
      for (int row = 0; row < references[reference]->descriptors.rows; ++row) {
        index->local.push_back(row);
      }
    }
    if (!parts.empty()) {
      cv::vconcat(parts, index->descriptors);
      buildHashTables(*index);
    }
    *out = index.release();
    return PM_OK;
  });
}

void pm_keypoint_index_free(pm_keypoint_index *index) {
  delete index;
}

namespace {

// The homography from `from` (reference, shrunk) to `to` (query, shrunk), in original pixels of
// both; 0 inliers when there is none or it is implausible (folds or collapses the meter).
int verifiedHomography(
  const std::vector<cv::Point2f> &from, const std::vector<cv::Point2f> &to, cv::Size referenceSize,
  double referenceScale, double queryScale, double homography[9]) {
  std::fill(homography, homography + 9, 0.0);
  if (from.size() < 8) {
    return 0;
  }
  cv::Mat mask;
  cv::Mat found = cv::findHomography(from, to, cv::USAC_FAST, 4.0, mask, 1000, 0.995);
  if (found.empty()) {
    return 0;
  }
  const double determinant =
    found.at<double>(0, 0) * found.at<double>(1, 1) - found.at<double>(0, 1) * found.at<double>(1, 0);
  if (determinant < 0.05 || determinant > 20) {
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
  // Inliers bunched in one spot (a word two meters share) prove little: the score is the number
  // of cells of a 16 x 16 grid over the reference that hold at least one inlier.
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

pm_status pm_keypoint_index_query(
  const pm_keypoint_index *index, const pm_keypoints *query, int maxDistance, int verify, int *votes, int *verified,
  int *inliers, double *homographies) {
  return guarded([&] {
    std::fill(votes, votes + index->references, 0);
    std::fill(verified, verified + verify, -1);
    std::fill(inliers, inliers + verify, 0);
    if (index->descriptors.empty() || query->descriptors.rows == 0) {
      return PM_OK;
    }
    // For each query descriptor, the nearest row of each of the `neighbours` nearest references:
    // a look-alike meter's copy of a shared glyph may be nearer than the right meter's, so each
    // of them gets its own correspondence. The nearest reference alone gets the shortlist vote.
    constexpr int neighbours = 4;
    std::vector<std::vector<std::pair<int, int>>> matches(size_t(index->references));
    std::vector<int> stamp(size_t(index->descriptors.rows), -1);
    for (int row = 0; row < query->descriptors.rows; ++row) {
      const uint8_t *descriptor = query->descriptors.ptr<uint8_t>(row);
      std::pair<int, int> best[neighbours];  // (distance, descriptor row), distinct references
      int found = 0;
      for (int table = 0; table < hashTables; ++table) {
        const uint32_t key = hashKey(descriptor, index->keyBits[size_t(table)]);
        const auto &offsets = index->offsets[size_t(table)];
        // A crowded bucket holds a pattern every meter has (plain edges, the same font): it
        // costs time and tells nothing.
        if (offsets[key + 1] - offsets[key] > maxBucket) {
          continue;
        }
        for (int slot = offsets[key]; slot < offsets[key + 1]; ++slot) {
          const int candidate = index->rows[size_t(table)][size_t(slot)];
          if (stamp[size_t(candidate)] == row) {
            continue;
          }
          stamp[size_t(candidate)] = row;
          const int distance = hamming(descriptor, index->descriptors.ptr<uint8_t>(candidate));
          if (distance > maxDistance) {
            continue;
          }
          const int owner = index->owner[size_t(candidate)];
          int position = 0;
          while (position < found && index->owner[size_t(best[position].second)] != owner) {
            ++position;
          }
          if (position < found) {
            if (distance >= best[position].first) {
              continue;
            }
          } else if (found < neighbours) {
            position = found++;
          } else if (distance < best[neighbours - 1].first) {
            position = neighbours - 1;
          } else {
            continue;
          }
          best[position] = {distance, candidate};
          std::sort(best, best + found);
        }
      }
      for (int rank = 0; rank < found; ++rank) {
        const int owner = index->owner[size_t(best[rank].second)];
        votes[owner] += rank == 0 ? 1 : 0;
        matches[size_t(owner)].emplace_back(row, index->local[size_t(best[rank].second)]);
      }
    }
    std::vector<int> order(static_cast<size_t>(index->references), 0);
    std::iota(order.begin(), order.end(), 0);
    const int shortlist = std::min(verify, index->references);
    std::partial_sort(
      order.begin(), order.begin() + shortlist, order.end(), [votes](int a, int b) { return votes[a] > votes[b]; });
    for (int rank = 0; rank < shortlist; ++rank) {
      const int reference = order[size_t(rank)];
      if (votes[reference] == 0) {
        break;
      }
      std::vector<cv::Point2f> from, to;
      for (const auto &[queryRow, referenceRow] : matches[size_t(reference)]) {
        from.push_back(index->points[size_t(reference)][size_t(referenceRow)]);
        to.push_back(query->points[size_t(queryRow)]);
      }
      verified[rank] = reference;
      inliers[rank] = verifiedHomography(
        from, to, index->sizes[size_t(reference)], index->scales[size_t(reference)], query->scale,
        homographies + 9 * rank);
    }
    return PM_OK;
  });
}

pm_status pm_keypoints_match(
  const pm_keypoints *reference, const pm_keypoints *query, float ratio, int *inliers, double homography[9]) {
  return guarded([&] {
    *inliers = 0;
    std::fill(homography, homography + 9, 0.0);
    if (reference->descriptors.rows < 2 || query->descriptors.rows < 2) {
      return PM_OK;
    }
    cv::BFMatcher matcher(cv::NORM_HAMMING);
    std::vector<std::vector<cv::DMatch>> matches;
    matcher.knnMatch(query->descriptors, reference->descriptors, matches, 2);
    std::vector<cv::Point2f> from, to;
    for (const auto &pair : matches) {
      if (pair.size() == 2 && pair[0].distance < ratio * pair[1].distance) {
        from.push_back(reference->points[size_t(pair[0].trainIdx)]);
        to.push_back(query->points[size_t(pair[0].queryIdx)]);
      }
    }
    *inliers = verifiedHomography(from, to, reference->size, reference->scale, query->scale, homography);
    return PM_OK;
  });
}

// MARK: Digits

pm_status pm_digits_prepare(const pm_image *image, int height, int border, int binarize, pm_image **out) {
  return guarded([&] {
    *out = nullptr;
    if (height <= 0 || height > 2000 || border < 0 || border > 500) {
      return fail(PM_BAD_ARGUMENT, "the height must be 1 to 2000 and the border 0 to 500 pixels");
    }
    cv::Mat greyImage = grey(image->mat).clone();
    // Polarity: the background is the larger side of Otsu's threshold; digits must be the darker.
    cv::Mat binary;
    cv::threshold(greyImage, binary, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
    if (cv::countNonZero(binary) < int(binary.total() / 2)) {
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

}  // extern "C"

namespace {

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

// `expected` even cells over the ink's extent.
// `expected` even cells over the window: everything inside the prepared image's white border.
// A meter's digit window spaces its digits evenly; the ink alone would miss a blank or thin edge
// digit.
std::vector<cv::Rect> evenCells(const cv::Mat &greyImage, int expected) {
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
  std::vector<cv::Rect> cells;
  const double even = double(right - left + 1) / expected;
  for (int cell = 0; cell < expected; ++cell) {
    const int x0 = left + int(cell * even + 0.5), x1 = left + int((cell + 1) * even + 0.5);
    cells.emplace_back(x0, top, std::max(1, x1 - x0), bottom - top + 1);
  }
  return cells;
}

}  // namespace

extern "C" {

pm_status pm_digit_cells(const pm_image *prepared, int expected, int *rects, int capacity, int *count) {
  return guarded([&] {
    *count = 0;
    cv::Mat ink;
    cv::threshold(grey(prepared->mat), ink, 0, 255, cv::THRESH_BINARY_INV | cv::THRESH_OTSU);
    // Components when they agree with the expected count; else even cells over the window.
    std::vector<cv::Rect> cells = componentCells(ink);
    if (expected > 0 && int(cells.size()) != expected) {
      cells = evenCells(grey(prepared->mat), expected);
    }
    for (const auto &cell : cells) {
      if (*count < capacity) {
        rects[4 * *count] = cell.x;
        rects[4 * *count + 1] = cell.y;
        rects[4 * *count + 2] = cell.width;
        rects[4 * *count + 3] = cell.height;
      }
      ++*count;
    }
    return PM_OK;
  });
}

int pm_cell_feature_size(void) {
  return hogSize() + pixelWidth * pixelHeight;
}

pm_status pm_cell_features(const pm_image *image, int x, int y, int width, int height, float *out) {
  return guarded([&] {
    cv::Rect area = cv::Rect(x, y, width, height) & cv::Rect(0, 0, image->mat.cols, image->mat.rows);
    if (area.width <= 0 || area.height <= 0) {
      return fail(PM_BAD_ARGUMENT, "the cell lies outside the image");
    }
    cv::Mat cell = grey(image->mat)(area).clone();
    // Keep the digit's shape: pad a narrow cell (a seven-segment 1) to the 2:3 shape with its background.
    const int wanted = cell.rows * cellWidth / cellHeight;
    if (cell.cols < wanted) {
      auto [low, high] = percentiles(cell, 0.5, 0.5);
      (void)high;
      const int pad = wanted - cell.cols;
      cv::copyMakeBorder(cell, cell, 0, 0, pad / 2, pad - pad / 2, cv::BORDER_CONSTANT, cv::Scalar(low));
    }
    cv::Mat small;
    cv::resize(cell, small, cv::Size(cellWidth, cellHeight), 0, 0, cv::INTER_AREA);
    std::vector<float> hog;
    cellDescriptor().compute(small, hog);
    const int hogCount = int(hog.size());
    double hogNorm = 0;
    for (float value : hog) {
      hogNorm += double(value) * value;
    }
    hogNorm = std::sqrt(std::max(hogNorm, 1e-12));
    for (int index = 0; index < hogCount; ++index) {
      out[index] = float(hog[size_t(index)] / hogNorm);
    }
    // Pixels, zero mean and with the background (the cell's border) made positive, so polarity
    // does not matter; they weigh half as much as the gradients.
    cv::Mat pixels;
    cv::resize(small, pixels, cv::Size(pixelWidth, pixelHeight), 0, 0, cv::INTER_AREA);
    pixels.convertTo(pixels, CV_32F);
    const double mean = cv::mean(pixels)[0];
    double borderMean = 0;
    for (int column = 0; column < pixelWidth; ++column) {
      borderMean += pixels.at<float>(0, column) + pixels.at<float>(pixelHeight - 1, column);
    }
    const float sign = borderMean / (2 * pixelWidth) >= mean ? 1.0f : -1.0f;
    double pixelNorm = 0;
    for (int index = 0; index < pixelWidth * pixelHeight; ++index) {
      const float value = sign * float(pixels.at<float>(index / pixelWidth, index % pixelWidth) - mean);
      out[hogCount + index] = value;
      pixelNorm += double(value) * value;
    }
    pixelNorm = std::sqrt(std::max(pixelNorm, 1e-12));
    double total = 0;
    for (int index = 0; index < pixelWidth * pixelHeight; ++index) {
      out[hogCount + index] = float(0.5 * out[hogCount + index] / pixelNorm);
    }
    for (int index = 0; index < hogCount + pixelWidth * pixelHeight; ++index) {
      total += double(out[index]) * out[index];
    }
    total = std::sqrt(total);
    for (int index = 0; index < hogCount + pixelWidth * pixelHeight; ++index) {
      out[index] = float(out[index] / total);
    }
    return PM_OK;
  });
}

pm_status pm_nearest_templates(
  const float *templates, int template_count, const float *queries, int query_count, int dimensions, int k,
  int *indices, float *similarities) {
  return guarded([&] {
    if (template_count <= 0 || query_count <= 0 || k <= 0 || k > template_count) {
      return fail(PM_BAD_ARGUMENT, "need templates, queries and 1 <= k <= the number of templates");
    }
    cv::Mat library(template_count, dimensions, CV_32F, const_cast<float *>(templates));
    cv::Mat asked(query_count, dimensions, CV_32F, const_cast<float *>(queries));
    cv::Mat scores;
    cv::gemm(asked, library, 1, cv::noArray(), 0, scores, cv::GEMM_2_T);
    std::vector<int> order(static_cast<size_t>(template_count), 0);
    for (int query = 0; query < query_count; ++query) {
      const float *row = scores.ptr<float>(query);
      std::iota(order.begin(), order.end(), 0);
      std::partial_sort(order.begin(), order.begin() + k, order.end(), [row](int a, int b) { return row[a] > row[b]; });
      for (int rank = 0; rank < k; ++rank) {
        indices[query * k + rank] = order[size_t(rank)];
        similarities[query * k + rank] = row[order[size_t(rank)]];
      }
    }
    return PM_OK;
  });
}

pm_status pm_principal_components(
  const float *data, int rows, int dimensions, int components, float *mean, float *vectors) {
  return guarded([&] {
    if (rows < 2 || components <= 0 || components > std::min(rows, dimensions)) {
      return fail(PM_BAD_ARGUMENT, "need at least 2 rows and 1 <= components <= min(rows, dimensions)");
    }
    cv::Mat samples(rows, dimensions, CV_32F, const_cast<float *>(data));
    cv::PCA pca(samples, cv::noArray(), cv::PCA::DATA_AS_ROW, components);
    cv::Mat meanRow = pca.mean.reshape(1, 1), eigen;
    meanRow.convertTo(meanRow, CV_32F);
    pca.eigenvectors.convertTo(eigen, CV_32F);
    std::memcpy(mean, meanRow.ptr<float>(), sizeof(float) * size_t(dimensions));
    for (int row = 0; row < components; ++row) {
      std::memcpy(vectors + size_t(row) * size_t(dimensions), eigen.ptr<float>(row), sizeof(float) * size_t(dimensions));
    }
    return PM_OK;
  });
}

}  // extern "C"
