// The sequence digit reader and its cell classifier: the window (or each cell) prepared as
// Tools/digitreader/augment.py `prepare` (cells.py `prepare_cell`) does, and the ONNX networks
// forwarded by OpenCV's dnn module.
#include "digit_reader.h"

#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace {

thread_local std::string lastError;

template <typename Body> pm_reader_status guarded(pm_reader_status failure, Body body) {
  try {
    lastError.clear();
    return body();
  } catch (const cv::Exception &error) {
    lastError = error.what();
  } catch (const std::exception &error) {
    lastError = error.what();
  }
  return failure;
}

// The least spread the prepared window is divided by: a blank window stays blank.
constexpr double leastSpread = 8;

cv::Mat toGrey(const cv::Mat &window) {
  if (window.channels() == 1) return window;
  cv::Mat grey;
  cv::cvtColor(window, grey, cv::COLOR_BGR2GRAY);
  return grey;
}

cv::Mat prepare(const cv::Mat &window, int height, int stride) {
  cv::Mat grey = toGrey(window);
  long scaled_width = std::lround(double(grey.cols) * height / grey.rows);
  int width = int(std::clamp(scaled_width, 8L, long(PM_READER_MAX_WIDTH)));
  cv::Mat scaled;
  // (Area interpolation only shrinks both ways; a window squeezed to the width limit while
  // scaled up in height takes linear.)
  cv::resize(grey, scaled, cv::Size(width, height), 0, 0, grey.rows > height && grey.cols >= width ? cv::INTER_AREA : cv::INTER_LINEAR);
  cv::Mat pixels;
  scaled.convertTo(pixels, CV_32F);
  cv::Scalar mean, spread;
  cv::meanStdDev(pixels, mean, spread);
  pixels = (pixels - mean[0]) / std::max(spread[0], leastSpread);
  // Zeros (the mean) on the right up to a whole number of columns, as training pads its batches:
  // the network would drop the last partial column, and with it a digit's right edge.
  int extra = (stride - width % stride) % stride;
  if (extra > 0) cv::copyMakeBorder(pixels, pixels, 0, 0, 0, extra, cv::BORDER_CONSTANT, cv::Scalar(0));
  return pixels;
}

// One cell of a grey window as the classifier takes it (Tools/digitreader/cells.py `cut` and
// `prepare_cell`).
cv::Mat prepareCell(const cv::Mat &grey, int left, int right, int height, int width) {
  right = std::max(right, left + 1);
  int padLeft = std::max(0, -left), padRight = std::max(0, right - grey.cols);
  cv::Mat source = grey;
  if (padLeft > 0 || padRight > 0) cv::copyMakeBorder(grey, source, 0, 0, padLeft, padRight, cv::BORDER_REPLICATE);
  cv::Mat cell = source.colRange(left + padLeft, right + padLeft);
  cv::Mat scaled;
  cv::resize(cell, scaled, cv::Size(width, height), 0, 0, cell.rows > height ? cv::INTER_AREA : cv::INTER_LINEAR);
  cv::Mat pixels;
  scaled.convertTo(pixels, CV_32F);
  cv::Scalar mean, spread;
  cv::meanStdDev(pixels, mean, spread);
  return (pixels - mean[0]) / std::max(spread[0], leastSpread);
}

// An ONNX network on OpenCV's CPU backend. cv::dnn::Net keeps its buffers between forwards:
// one forward at a time.
class OnnxNetwork {
 public:
  explicit OnnxNetwork(const char *path) : net(cv::dnn::readNetFromONNX(path)) {
    net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
    net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
    outputs = net.getUnconnectedOutLayersNames();
  }

  // The output `first`, and `second` too when the network has it (else `*other` is left empty).
  // A network of one output gives it as `first`, whatever its name.
  cv::Mat forward(const cv::Mat &blob, const std::string &first = "", const std::string &second = "",
                  cv::Mat *other = nullptr) {
    std::lock_guard<std::mutex> hold(lock);
    net.setInput(blob);
    if (outputs.size() < 2) return net.forward().clone();
    std::vector<std::string> names{first};
    bool both = other != nullptr && std::find(outputs.begin(), outputs.end(), second) != outputs.end();
    if (both) names.push_back(second);
    std::vector<cv::Mat> results;
    net.forward(results, names);
    if (both) *other = results[1].clone();
    return results[0].clone();
  }

 private:
  cv::dnn::Net net;
  std::vector<std::string> outputs;
  std::mutex lock;
};

// The output's first `count` floats in a buffer of malloc's (freed by pm_reader_scores_free), or
// nullptr when there is no memory for it.
float *copyScores(const cv::Mat &output, size_t count) {
  auto copy = static_cast<float *>(std::malloc(count * sizeof(float)));
  if (copy != nullptr) std::memcpy(copy, output.ptr<float>(), count * sizeof(float));
  return copy;
}

}  // namespace

struct pm_reader {
  OnnxNetwork network;
  int height;
  int stride;
};

struct pm_cells {
  OnnxNetwork network;
  int height;
  int width;
};

struct pm_rows {
  OnnxNetwork network;
  int longSide;
  int stride;
};

struct pm_turns {
  OnnxNetwork network;
  int longSide;
};

struct pm_photo_input {
  cv::Mat blob;
  int inputWidth;
  int inputHeight;
  int width;
  int height;
  int longSide;
};

namespace {

// The core the row finder marks, as Tools/train-row-finder.py draws it: the middle half of a
// row's height, less a tenth of its height at either end.
constexpr double coreShare = 0.5;
constexpr double coreInset = 0.1;
// How much thicker and longer, in cells, a region of cells over the threshold is than the core
// it marks (Tools/train-row-finder.py THICKNESS_EXCESS and LENGTH_EXCESS, measured on its
// development scenes).
constexpr double thicknessExcess = 0.91;
constexpr double lengthExcess = 0.37;

// A whole photo as the row and orientation finders take it (Tools/rowfinder/maps.py `prepare`):
// BGR, 0-1, the longer side at `longSide`, both sides whole multiples of 16 (the networks halve
// their input up to three times and pad their dilations).
cv::Mat photoBlob(const uint8_t *pixels, int width, int height, int channels, int longSide, int *inputWidth,
                  int *inputHeight) {
  cv::Mat photo(height, width, channels == 3 ? CV_8UC3 : CV_8UC1, const_cast<uint8_t *>(pixels));
  cv::Mat colour;
  if (channels == 1) {
    cv::cvtColor(photo, colour, cv::COLOR_GRAY2BGR);
  } else {
    colour = photo;
  }
  const double scale = double(longSide) / std::max(width, height);
  *inputWidth = std::max(16, int(std::lround(width * scale / 16)) * 16);
  *inputHeight = std::max(16, int(std::lround(height * scale / 16)) * 16);
  cv::Mat small;
  cv::resize(colour, small, cv::Size(*inputWidth, *inputHeight), 0, 0, cv::INTER_AREA);
  return cv::dnn::blobFromImage(small, 1.0 / 255);
}

struct FoundRow {
  std::array<cv::Point2f, 4> corners;
  float score;
};

// The rows in a map of core chances (H x W logits at `stride`), in the photo's pixels (scaled
// by `sx`, `sy` from it).
std::vector<FoundRow> rowsInMap(const cv::Mat &logits, float threshold, int stride, double sx, double sy) {
  cv::Mat chances;
  cv::exp(-logits, chances);
  chances = 1 / (1 + chances);
  cv::Mat mask = chances > threshold;
  cv::Mat labels;
  const int count = cv::connectedComponents(mask, labels, 8, CV_32S);
  std::vector<std::vector<cv::Point2f>> members(std::max(count, 1));
  std::vector<double> sums(std::max(count, 1), 0);
  for (int y = 0; y < labels.rows; ++y) {
    for (int x = 0; x < labels.cols; ++x) {
      const int label = labels.at<int>(y, x);
      if (label == 0) continue;
      members[label].emplace_back(float(x + 0.5), float(y + 0.5));
      sums[label] += chances.at<float>(y, x);
    }
  }
  std::vector<FoundRow> found;
  for (int label = 1; label < count; ++label) {
    if (members[label].size() < 2) continue;
    const cv::RotatedRect rect = cv::minAreaRect(members[label]);
    cv::Point2f points[4];
    rect.points(points);
    // The side nearer level runs along the row, read left to right (a side of no length, of a
    // region one cell thick, is level neither way: the other side is the row's).
    cv::Point2f along = points[1] - points[0], across = points[2] - points[1];
    const double alongLength = cv::norm(along), acrossLength = cv::norm(across);
    if (alongLength == 0 || (acrossLength > 0 && std::abs(along.x) * acrossLength < std::abs(across.x) * alongLength)) {
      std::swap(along, across);
    }
    // A region standing more than 45 degrees from level is a stroke or an edge, not a row.
    if (std::abs(along.x) < std::abs(along.y)) continue;
    if (along.x < 0) along = -along;
    const double length = std::max(cv::norm(along) - lengthExcess, 0.5);
    const double thickness = std::max(cv::norm(across) - thicknessExcess, 0.5);
    const cv::Point2f unit = along / float(cv::norm(along) + 1e-9);
    const cv::Point2f down(-unit.y, unit.x);
    const double rowHeight = thickness / coreShare;
    const double rowWidth = length + 2 * coreInset * rowHeight;
    const cv::Point2f halfAlong = unit * float(rowWidth / 2), halfDown = down * float(rowHeight / 2);
    FoundRow row;
    row.corners = {rect.center - halfAlong - halfDown, rect.center + halfAlong - halfDown,
                   rect.center + halfAlong + halfDown, rect.center - halfAlong + halfDown};
    for (auto &corner : row.corners) corner = cv::Point2f(float(corner.x * stride / sx), float(corner.y * stride / sy));
    row.score = float(sums[label] / members[label].size());
    found.push_back(row);
  }
  // Surest first, and of rows as sure the larger.
  std::sort(found.begin(), found.end(), [](const FoundRow &a, const FoundRow &b) {
    return a.score * cv::norm(a.corners[3] - a.corners[0]) > b.score * cv::norm(b.corners[3] - b.corners[0]);
  });
  return found;
}

}  // namespace

extern "C" {

const char *pm_reader_last_error(void) { return lastError.c_str(); }

pm_reader_status pm_reader_load(const char *path, int height, int stride, pm_reader **out) {
  return guarded(PM_READER_BAD_MODEL, [&] {
    // (A file that is no network throws from OnnxNetwork's constructor, and `new` frees its memory.)
    *out = new pm_reader{OnnxNetwork(path), height, std::max(stride, 1)};
    return PM_READER_OK;
  });
}

void pm_reader_free(pm_reader *reader) { delete reader; }

pm_reader_status pm_reader_run(
  pm_reader *reader, const uint8_t *pixels, int width, int height, int channels, float **scores, int *score_channels,
  int *columns) {
  if (width < 1 || height < 1 || (channels != 1 && channels != 3)) return PM_READER_BAD_IMAGE;
  return guarded(PM_READER_FAILED, [&] {
    cv::Mat window(height, width, channels == 3 ? CV_8UC3 : CV_8UC1, const_cast<uint8_t *>(pixels));
    cv::Mat prepared = prepare(window, reader->height, reader->stride);
    int shape[] = {1, 1, prepared.rows, prepared.cols};
    cv::Mat blob(4, shape, CV_32F, prepared.data);
    cv::Mat output = reader->network.forward(blob);
    if (output.dims != 4 || output.size[0] != 1 || output.size[2] != 1) {
      lastError = "the network's output is not 1 x C x 1 x T";
      return PM_READER_BAD_MODEL;
    }
    float *copy = copyScores(output, size_t(output.size[1]) * output.size[3]);
    if (copy == nullptr) return PM_READER_FAILED;
    *scores = copy;
    *score_channels = output.size[1];
    *columns = output.size[3];
    return PM_READER_OK;
  });
}

void pm_reader_scores_free(float *scores) { std::free(scores); }

void pm_reader_set_threads(int threads) { cv::setNumThreads(threads <= 1 ? 0 : threads); }

pm_reader_status pm_cells_load(const char *path, int height, int width, pm_cells **out) {
  if (height < 1 || width < 1) return PM_READER_BAD_MODEL;
  return guarded(PM_READER_BAD_MODEL, [&] {
    *out = new pm_cells{OnnxNetwork(path), height, width};
    return PM_READER_OK;
  });
}

void pm_cells_free(pm_cells *cells) { delete cells; }

pm_reader_status pm_cells_run(
  pm_cells *cells, const uint8_t *pixels, int width, int height, int channels, const int *lefts, const int *rights,
  int count, float **scores, int *classes, float **features, int *feature_count) {
  if (features != nullptr) *features = nullptr;
  if (feature_count != nullptr) *feature_count = 0;
  if (width < 1 || height < 1 || (channels != 1 && channels != 3) || count < 1) return PM_READER_BAD_IMAGE;
  return guarded(PM_READER_FAILED, [&] {
    cv::Mat window(height, width, channels == 3 ? CV_8UC3 : CV_8UC1, const_cast<uint8_t *>(pixels));
    cv::Mat source = toGrey(window);
    int shape[] = {count, 1, cells->height, cells->width};
    cv::Mat blob(4, shape, CV_32F);
    for (int index = 0; index < count; index++) {
      // A cell is at most the window's width beyond either edge: a hostile span allocates nothing large.
      int left = std::clamp(lefts[index], -width, 2 * width - 1);
      int right = std::clamp(rights[index], left + 1, 2 * width);
      cv::Mat cell = prepareCell(source, left, right, cells->height, cells->width);
      cell.copyTo(cv::Mat(cells->height, cells->width, CV_32F, blob.ptr<float>(index)));
    }
    cv::Mat layer;
    cv::Mat output = cells->network.forward(blob, "scores", "features", features != nullptr ? &layer : nullptr);
    if (output.dims != 2 || output.size[0] != count) {
      lastError = "the classifier's output is not N x C";
      return PM_READER_BAD_MODEL;
    }
    float *copy = copyScores(output, size_t(count) * output.size[1]);
    if (copy == nullptr) return PM_READER_FAILED;
    if (!layer.empty() && layer.dims == 2 && layer.size[0] == count && feature_count != nullptr) {
      *features = copyScores(layer, size_t(count) * layer.size[1]);
      if (*features == nullptr) {
        std::free(copy);
        return PM_READER_FAILED;
      }
      *feature_count = layer.size[1];
    }
    *scores = copy;
    *classes = output.size[1];
    return PM_READER_OK;
  });
}

pm_reader_status pm_rows_load(const char *path, int long_side, int stride, pm_rows **out) {
  if (long_side < 16 || stride < 1) return PM_READER_BAD_MODEL;
  return guarded(PM_READER_BAD_MODEL, [&] {
    *out = new pm_rows{OnnxNetwork(path), long_side, stride};
    return PM_READER_OK;
  });
}

void pm_rows_free(pm_rows *rows) { delete rows; }

pm_reader_status pm_photo_input_make(
  const uint8_t *pixels, int width, int height, int channels, int long_side, pm_photo_input **out) {
  *out = nullptr;
  if (width < 1 || height < 1 || (channels != 1 && channels != 3)) return PM_READER_BAD_IMAGE;
  return guarded(PM_READER_FAILED, [&] {
    if (long_side < 16) {
      lastError = "a photo is shrunk to 16 pixels or more, not " + std::to_string(long_side);
      return PM_READER_FAILED;
    }
    auto input = std::make_unique<pm_photo_input>();
    input->blob = photoBlob(pixels, width, height, channels, long_side, &input->inputWidth, &input->inputHeight);
    input->width = width, input->height = height, input->longSide = long_side;
    *out = input.release();
    return PM_READER_OK;
  });
}

void pm_photo_input_free(pm_photo_input *input) { delete input; }

namespace {

// Whether `input` was made at the side `network` takes; else the error says so.
bool madeFor(const pm_photo_input *input, int longSide, const char *network) {
  if (input->longSide == longSide) return true;
  lastError = std::string("the photo was shrunk to ") + std::to_string(input->longSide) + " pixels for " + network +
              ", which takes " + std::to_string(longSide);
  return false;
}

}  // namespace

pm_reader_status pm_rows_find(
  pm_rows *rows, const pm_photo_input *input, float threshold, int max_rows, float *corners, float *scores,
  int *count) {
  *count = 0;
  if (max_rows <= 0) return PM_READER_OK;
  if (!madeFor(input, rows->longSide, "the row finder")) return PM_READER_FAILED;
  return guarded(PM_READER_FAILED, [&] {
    const int inputWidth = input->inputWidth, inputHeight = input->inputHeight;
    const int width = input->width, height = input->height;
    cv::Mat output = rows->network.forward(input->blob);
    if (output.dims != 4 || output.size[0] != 1 || output.size[1] != 1) {
      lastError = "the row finder's output is not 1 x 1 x H x W";
      return PM_READER_BAD_MODEL;
    }
    cv::Mat logits(output.size[2], output.size[3], CV_32F, output.ptr<float>());
    const auto found = rowsInMap(
      logits, threshold, rows->stride, double(inputWidth) / width, double(inputHeight) / height);
    for (const auto &row : found) {
      if (*count == max_rows) break;
      for (int corner = 0; corner < 4; ++corner) {
        corners[8 * *count + 2 * corner] = row.corners[corner].x;
        corners[8 * *count + 2 * corner + 1] = row.corners[corner].y;
      }
      scores[*count] = row.score;
      ++*count;
    }
    return PM_READER_OK;
  });
}

pm_reader_status pm_turns_load(const char *path, int long_side, pm_turns **out) {
  if (long_side < 16) return PM_READER_BAD_MODEL;
  return guarded(PM_READER_BAD_MODEL, [&] {
    *out = new pm_turns{OnnxNetwork(path), long_side};
    return PM_READER_OK;
  });
}

void pm_turns_free(pm_turns *turns) { delete turns; }

pm_reader_status pm_turns_find(
  pm_turns *turns, const pm_photo_input *input, float *chances, int capacity, int *map_width, int *map_height) {
  *map_width = 0;
  *map_height = 0;
  if (!madeFor(input, turns->longSide, "the orientation finder")) return PM_READER_FAILED;
  return guarded(PM_READER_FAILED, [&] {
    cv::Mat output = turns->network.forward(input->blob);
    if (output.dims != 4 || output.size[0] != 1 || output.size[1] != 5) {
      lastError = "the orientation finder's output is not 1 x 5 x H x W";
      return PM_READER_BAD_MODEL;
    }
    const int cells = output.size[2] * output.size[3];
    if (4 * cells > capacity) {
      lastError = "the orientation finder's map of " + std::to_string(cells) + " cells is more than the " +
                  std::to_string(capacity / 4) + " the caller made room for";
      return PM_READER_FAILED;
    }
    const float *logits = output.ptr<float>();
    for (int cell = 0; cell < cells; ++cell) {
      float most = logits[cell];
      for (int k = 1; k < 5; ++k) most = std::max(most, logits[k * cells + cell]);
      float exps[5], sum = 0;
      for (int k = 0; k < 5; ++k) sum += exps[k] = std::exp(logits[k * cells + cell] - most);
      for (int k = 0; k < 4; ++k) chances[k * cells + cell] = exps[k + 1] / sum;
    }
    *map_width = output.size[3];
    *map_height = output.size[2];
    return PM_READER_OK;
  });
}

}  // extern "C"
