// What the OpenCV shim's files share: the opaque objects behind photometer_vision.h and the helpers
// every entry point uses. Every entry point runs its body through `guarded`, which turns a C++
// exception into a status and keeps its text for pm_last_error: an exception that reached Swift
// would abort the process.
#ifndef PHOTOMETER_VISION_INTERNAL_HPP
#define PHOTOMETER_VISION_INTERNAL_HPP

#include "photometer_vision.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

struct pm_image {
  cv::Mat mat;
  double scale = 1;
};

struct pm_keypoints {
  std::vector<cv::Point2f> points;
  // Each keypoint's orientation (degrees) and pyramid level, for the index's pose votes.
  std::vector<float> angles;
  std::vector<int8_t> octaves;
  cv::Mat descriptors;
  // The first `headOn` rows are the photo's as taken; the rest, of a reference, from its views as
  // seen from the side (matched in verification, not hashed into an index).
  int headOn = 0;
  cv::Size size;
  double scale = 1;
};

namespace pm {

// Visual words over an index's own descriptors (vision_keypoint_words.cpp), for households too
// large for the hash tables to meet the right meter's descriptors: a two-level vocabulary drawn
// from the index's descriptors, and an inverted file of each word's references with tf-idf weights.
struct KeypointWords {
  using Word = std::array<uint64_t, 4>;
  // A descriptor's word: its nearest `top` word t, then its nearest of `leaves[t]`, numbered from
  // `firstLeaf[t]`. Empty when the index has no words.
  std::vector<Word> top;
  std::vector<std::vector<Word>> leaves;
  std::vector<int> firstLeaf;
  // Per word: log(references / references holding it).
  std::vector<float> idf;
  // Per word, its references (CSR: `postingStart` has a word count plus one entries) and its
  // weight in each: occurrences times idf, each reference's weights summing to one.
  std::vector<int> postingStart;
  std::vector<int> postingReference;
  std::vector<float> postingWeight;
  // Per index row, its word; per reference, its first row (rows of a reference sit together;
  // one entry more than references): the words a reference's keypoints fall in, for the
  // shortlist's geometric re-ranking.
  std::vector<int> rowWord;
  std::vector<int> firstRow;
};

}  // namespace pm

struct pm_keypoint_index {
  // Every reference's head-on keypoints' descriptors, the rows that are hashed.
  cv::Mat descriptors;
  // For each row of `descriptors`: its reference.
  std::vector<int> owner;
  // For each row of `descriptors`: its keypoint's position, orientation and pyramid level.
  std::vector<cv::Point2f> rowPoints;
  std::vector<float> rowAngles;
  std::vector<int8_t> rowOctaves;
  // Each reference's keypoints, its tilted views' too, for verification; not copied (two thirds
  // of them are the views'), so whoever built the index keeps them alive as long as it.
  std::vector<const pm_keypoints *> sources;
  std::vector<double> scales;
  std::vector<cv::Size> sizes;
  int references = 0;
  // Locality-sensitive hashing: each table keys a descriptor by a fixed random choice of its
  // bits; rows sharing a key sit together (offsets into `rows`, as in a CSR matrix).
  std::vector<std::vector<int>> keyBits;
  std::vector<std::vector<int>> offsets;
  std::vector<std::vector<int>> rows;
  // Built on request (pm_keypoint_index_build's `words`): the shortlist's ranking then.
  pm::KeypointWords words;
};

namespace pm {

/// The text of the last failure on this thread.
inline thread_local std::string lastError;

template <typename Body> inline pm_status guarded(Body body) {
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

/// Polarity: whether the digits are light on a dark background, the background being the larger
/// side of Otsu's threshold.
inline bool lightOnDark(const cv::Mat &greyImage) {
  cv::Mat binary;
  cv::threshold(greyImage, binary, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
  return cv::countNonZero(binary) < int(binary.total() / 2);
}

inline pm_status fail(pm_status status, const char *message) {
  lastError = message;
  return status;
}

inline cv::Mat grey(const cv::Mat &image) {
  if (image.channels() == 1) {
    return image;
  }
  cv::Mat result;
  cv::cvtColor(image, result, cv::COLOR_BGR2GRAY);
  return result;
}

inline pm_image *wrap(cv::Mat mat, double scale = 1) {
  auto image = new pm_image;
  image->mat = std::move(mat);
  image->scale = scale;
  return image;
}

// The central half of an image, where a photographed meter usually is.
inline cv::Mat centre(const cv::Mat &image) {
  return image(cv::Rect(image.cols / 4, image.rows / 4, std::max(1, image.cols / 2), std::max(1, image.rows / 2)));
}

// Grey levels at two percentiles of an 8-bit grey image.
inline std::pair<int, int> percentiles(const cv::Mat &greyImage, double low, double high) {
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

// Runs `work(worker)` for each of `threads` workers, the first on the calling thread (and any
// the system would not start a thread for). Every worker is joined before an exception one of
// them threw (OpenCV's, or out of memory) is rethrown on the calling thread, where `guarded`
// turns it into a status.
template <typename Work> inline void onThreads(int threads, Work work) {
  std::mutex lock;
  std::exception_ptr failure;
  const auto run = [&](int worker) {
    try {
      work(worker);
    } catch (...) {
      const std::lock_guard<std::mutex> guard(lock);
      if (!failure) {
        failure = std::current_exception();
      }
    }
  };
  std::vector<std::thread> helpers;
  helpers.reserve(size_t(threads));  // so that adding a started thread cannot throw
  std::vector<int> here = {0};
  here.reserve(size_t(threads));
  for (int worker = 1; worker < threads; ++worker) {
    try {
      helpers.emplace_back(run, worker);
    } catch (const std::system_error &) {
      here.push_back(worker);
    }
  }
  for (int worker : here) {
    run(worker);
  }
  for (auto &helper : helpers) {
    helper.join();
  }
  if (failure) {
    std::rethrow_exception(failure);
  }
}

// Visual words (vision_keypoint_words.cpp): the vocabulary and inverted file of `descriptors`
// (each row's reference in `owner`), built on `threads` threads (the same for any number).
KeypointWords buildKeypointWords(const cv::Mat &descriptors, const std::vector<int> &owner, int references, int threads);

// The word of each of `query`'s rows.
std::vector<int> wordsOf(const KeypointWords &words, const cv::Mat &query);

// The `count` references whose words overlap the query's most (tf-idf, the sum over words of the
// smaller of the two weights), best first; none that shares no word. `numbers`: the query's words.
std::vector<int> wordShortlist(
  const KeypointWords &words, const std::vector<int> &numbers, int references, int count);

// Keypoint verification (vision_keypoint_verification.cpp), used by the index's query.

// Verification stops once a reference scored this much: at 1,000 look-alike meters no wrong or
// unknown meter scored over 20.
constexpr int kBeyondChance = 26;

// Each query descriptor with its nearest row of `train` when that is within `maxDistance` and
// clearly nearer than the second nearest (Lowe's ratio test): (query row, train row) pairs.
std::vector<std::pair<int, int>> ratioMatches(const cv::Mat &query, const cv::Mat &train, int maxDistance, float ratio);

// The homography from a reference's points `from` to the query's `to` (shrunk pixels of both),
// into `homography` in original pixels, and its score: the cells of a 16 x 16 grid over the
// reference holding an inlier, 0 when no plausible homography was found.
int verifiedHomography(
  const std::vector<cv::Point2f> &from, const std::vector<cv::Point2f> &to, cv::Size referenceSize,
  cv::Size querySize, double referenceScale, double queryScale, double homography[9]);

}  // namespace pm

#endif
