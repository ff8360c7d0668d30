// Images: decoding, cropping, straightening, encoding, colour and quality.
#include "photometer_vision.h"
#include "vision_internal.hpp"

#include <opencv2/imgcodecs.hpp>

#include <cstdlib>
#include <cstring>

using namespace pm;

namespace {
// Each Photometer process works on one small image at a time, and the host runs several plugin
// processes (pools) for parallel work: OpenCV's own worker threads only add wake-ups and
// contention for the same cores, so it runs on the calling thread. (The reader plugin, whose
// network is most of a read's time, gives it two: DigitReader's ReaderNetwork.useThreads.)
const bool openCVSingleThreaded = [] {
  cv::setNumThreads(0);
  return true;
}();

// A JPEG's longer side from its frame header (SOFn), or 0 when `data` is no JPEG or has none
// before its scan.
int jpegLongerSide(const uint8_t *data, size_t size) {
  if (size < 4 || data[0] != 0xFF || data[1] != 0xD8) return 0;
  size_t at = 2;
  while (at + 4 <= size) {
    if (data[at] != 0xFF) return 0;
    const uint8_t marker = data[at + 1];
    if (marker == 0xFF) {  // fill byte
      at += 1;
      continue;
    }
    const size_t length = (size_t(data[at + 2]) << 8) | data[at + 3];
    const bool frame = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
    if (frame && at + 9 <= size) {
      const int height = (int(data[at + 5]) << 8) | data[at + 6];
      const int width = (int(data[at + 7]) << 8) | data[at + 8];
      return std::max(width, height);
    }
    if (marker == 0xDA || length < 2) return 0;  // the scan, or a broken segment
    at += 2 + length;
  }
  return 0;
}

// The imdecode flags for a photo whose longer side is `longer` pixels (0: not known) wanted at
// most `maxSide` pixels a side (0: whole): a JPEG at least twice as large is decoded at a half,
// a quarter or an eighth of its size by libjpeg's own scaling (a phone's 12 MP photo wanted at
// 640 pixels took 51-68 ms to decode whole), never below `maxSide`, and shrunk the rest of the
// way as before.
int decodeFlags(int longer, int maxSide) {
  if (maxSide <= 0 || longer <= 0) return cv::IMREAD_COLOR;
  if (longer >= 8 * maxSide) return cv::IMREAD_REDUCED_COLOR_8;
  if (longer >= 4 * maxSide) return cv::IMREAD_REDUCED_COLOR_4;
  if (longer >= 2 * maxSide) return cv::IMREAD_REDUCED_COLOR_2;
  return cv::IMREAD_COLOR;
}
}  // namespace

extern "C" {

const char *pm_last_error(void) {
  return lastError.c_str();
}

pm_status pm_image_decode_reduced(const uint8_t *data, size_t size, int least_side, int most_side, pm_image **out) {
  return guarded([&] {
    *out = nullptr;
    if (data == nullptr || size == 0) {
      return fail(PM_BAD_IMAGE, "the image is empty");
    }
    cv::Mat bytes(1, int(size), CV_8U, const_cast<uint8_t *>(data));
    // The photo's longer side as it was taken, from a JPEG's header when it may be scaled down.
    const int taken = least_side > 0 ? jpegLongerSide(data, size) : 0;
    const int flags = decodeFlags(taken, least_side);
    cv::Mat image = cv::imdecode(bytes, flags);
    if (image.empty()) {
      return fail(PM_BAD_IMAGE, "the image does not decode");
    }
    const int longer = std::max(image.cols, image.rows);
    // The image's pixels per pixel of the photo as it was taken.
    double scale = flags != cv::IMREAD_COLOR ? double(longer) / taken : 1;
    if (most_side > 0 && longer > most_side) {
      const double shrink = double(most_side) / longer;
      cv::resize(image, image, cv::Size(), shrink, shrink, cv::INTER_AREA);
      scale *= shrink;
    }
    *out = wrap(image, scale);
    return PM_OK;
  });
}

pm_status pm_image_decode(const uint8_t *data, size_t size, int max_side, pm_image **out) {
  return pm_image_decode_reduced(data, size, max_side, max_side, out);
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

pm_status pm_image_turn(const pm_image *image, int quarter_turns, pm_image **out) {
  return guarded([&] {
    *out = nullptr;
    const int turns = ((quarter_turns % 4) + 4) % 4;
    if (turns == 0) {
      *out = wrap(image->mat.clone(), image->scale);
      return PM_OK;
    }
    static constexpr cv::RotateFlags codes[] = {cv::ROTATE_90_CLOCKWISE, cv::ROTATE_180, cv::ROTATE_90_COUNTERCLOCKWISE};
    cv::Mat turned;
    cv::rotate(image->mat, turned, codes[turns - 1]);
    *out = wrap(turned, image->scale);
    return PM_OK;
  });
}

pm_status pm_image_annotate(
  const pm_image *image, const float *quads, const uint32_t *colours, const char *const *labels, int count,
  pm_image **out) {
  return guarded([&] {
    *out = nullptr;
    if (count < 0 || (count > 0 && (quads == nullptr || colours == nullptr || labels == nullptr))) {
      return fail(PM_BAD_ARGUMENT, "the marks are missing");
    }
    cv::Mat canvas;
    if (image->mat.channels() == 1) {
      cv::cvtColor(image->mat, canvas, cv::COLOR_GRAY2BGR);
    } else {
      canvas = image->mat.clone();
    }
    const int thickness = std::max(2, std::min(canvas.cols, canvas.rows) / 250);
    const double textScale = std::max(0.4, std::min(canvas.cols, canvas.rows) / 900.0);
    for (int index = 0; index < count; ++index) {
      const float *corners = quads + 8 * index;
      std::vector<cv::Point> points;
      for (int corner = 0; corner < 4; ++corner) {
        points.emplace_back(int(std::lround(corners[2 * corner])), int(std::lround(corners[2 * corner + 1])));
      }
      const cv::Scalar colour((colours[index] & 0xFF), (colours[index] >> 8) & 0xFF, (colours[index] >> 16) & 0xFF);
      cv::polylines(canvas, points, true, colour, thickness, cv::LINE_8);
      const std::string label = labels[index] ? labels[index] : "";
      if (label.empty()) {
        continue;
      }
      int baseline = 0;
      const cv::Size size = cv::getTextSize(label, cv::FONT_HERSHEY_SIMPLEX, textScale, 1, &baseline);
      const cv::Point origin(points[0].x, std::max(size.height + baseline, points[0].y - thickness));
      cv::rectangle(
        canvas, cv::Rect(origin.x, origin.y - size.height - baseline, size.width + 4, size.height + baseline),
        colour, cv::FILLED);
      cv::putText(canvas, label, cv::Point(origin.x + 2, origin.y - baseline), cv::FONT_HERSHEY_SIMPLEX, textScale,
                  cv::Scalar(0, 0, 0), 1, cv::LINE_AA);
    }
    *out = wrap(canvas);
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
    // At the reader's 32 pixels high, shrunk by area or enlarged as the reader enlarges.
    cv::Mat resized;
    const double scale = 32.0 / std::max(1, greyImage.rows);
    cv::resize(greyImage, resized, cv::Size(), scale, scale, scale < 1 ? cv::INTER_AREA : cv::INTER_LINEAR);
    cv::Mat laplacian;
    cv::Laplacian(resized, laplacian, CV_64F);
    cv::Scalar mean, deviation;
    cv::meanStdDev(laplacian, mean, deviation);
    quality->sharpness = deviation[0] * deviation[0];
    // Glare: pixels of 250 or more, and 40 brighter than the window's darker tenth (a bright face
    // or a lit segment is no highlight), in blobs wider than a stroke (opened by a 7-pixel disc at
    // the reader's 32 pixels high), as a share of the middle three fifths of the rows, where the
    // digits stand (a white frame above or below them is none).
    const int darkTenth = percentiles(resized, 0.1, 0.1).first;
    cv::Mat highlight = resized >= std::max(250, darkTenth + 40);
    cv::morphologyEx(
      highlight, highlight, cv::MORPH_OPEN, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(7, 7)));
    const cv::Mat band =
      highlight.rowRange(int(0.2 * highlight.rows), std::min(highlight.rows, int(0.8 * highlight.rows) + 1));
    quality->glare = double(cv::countNonZero(band)) / double(std::max<size_t>(1, band.total()));
    auto [low, high] = percentiles(greyImage, 0.05, 0.95);
    quality->contrast = high - low;
    return PM_OK;
  });
}

}  // extern "C"
