// Digit cells as the engine compares them: pixels and features of a cell, nearest templates,
// principal axes.
#include "photometer_vision.h"
#include "vision_internal.hpp"

#include <opencv2/objdetect.hpp>

#include <cmath>
#include <cstring>

using namespace pm;

namespace {

constexpr int cellWidth = 16, cellHeight = 24, pixelWidth = 8, pixelHeight = 12;

const cv::HOGDescriptor &cellDescriptor() {
  static const cv::HOGDescriptor descriptor(
    cv::Size(cellWidth, cellHeight), cv::Size(8, 8), cv::Size(4, 4), cv::Size(4, 4), 9);
  return descriptor;
}

int hogSize() {
  return int(cellDescriptor().getDescriptorSize());
}

// The cell as features and the network see it: grey, padded to the 2:3 shape when narrow (a
// seven-segment 1) with its background, scaled to cellWidth x cellHeight. False when the cell
// lies outside the image.
bool cellImage(const pm_image *image, cv::Rect area, cv::Mat &small) {
  area &= cv::Rect(0, 0, image->mat.cols, image->mat.rows);
  if (area.width <= 0 || area.height <= 0) {
    return false;
  }
  cv::Mat cell = grey(image->mat)(area).clone();
  const int wanted = cell.rows * cellWidth / cellHeight;
  if (cell.cols < wanted) {
    const int background = percentiles(cell, 0.5, 0.5).first;
    const int pad = wanted - cell.cols;
    cv::copyMakeBorder(cell, cell, 0, 0, pad / 2, pad - pad / 2, cv::BORDER_CONSTANT, cv::Scalar(background));
  }
  cv::resize(cell, small, cv::Size(cellWidth, cellHeight), 0, 0, cv::INTER_AREA);
  return true;
}

// The mean of the top and bottom rows of a float image: the background of a digit cell.
double borderMean(const cv::Mat &pixels) {
  double sum = 0;
  for (int column = 0; column < pixels.cols; ++column) {
    sum += pixels.at<float>(0, column) + pixels.at<float>(pixels.rows - 1, column);
  }
  return sum / (2 * pixels.cols);
}

}  // namespace

extern "C" {

int pm_cell_feature_size(void) {
  return hogSize() + pixelWidth * pixelHeight;
}

int pm_cell_width(void) {
  return cellWidth;
}

int pm_cell_height(void) {
  return cellHeight;
}

pm_status pm_cell_pixels(const pm_image *image, int x, int y, int width, int height, float *out) {
  return guarded([&] {
    cv::Mat small;
    if (!cellImage(image, cv::Rect(x, y, width, height), small)) {
      return fail(PM_BAD_ARGUMENT, "the cell lies outside the image");
    }
    cv::Mat pixels;
    small.convertTo(pixels, CV_32F);
    cv::Scalar mean, deviation;
    cv::meanStdDev(pixels, mean, deviation);
    const float sign = borderMean(pixels) >= mean[0] ? 1.0f : -1.0f;
    const float scale = sign / float(std::max(deviation[0], 1.0));
    for (int index = 0; index < cellWidth * cellHeight; ++index) {
      out[index] = (pixels.at<float>(index / cellWidth, index % cellWidth) - float(mean[0])) * scale;
    }
    return PM_OK;
  });
}

pm_status pm_cell_features(const pm_image *image, int x, int y, int width, int height, float *out) {
  return guarded([&] {
    cv::Mat small;
    if (!cellImage(image, cv::Rect(x, y, width, height), small)) {
      return fail(PM_BAD_ARGUMENT, "the cell lies outside the image");
    }
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
    const float sign = borderMean(pixels) >= mean ? 1.0f : -1.0f;
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

}  // extern "C"

namespace {

// The k best of each row of `scores` (query_count rows of template_count), best first, in one
// pass: a score enters the sorted list only when it beats the k-th so far, which after the first
// few hundred templates almost none does.
void bestOf(const float *scores, int query_count, int template_count, int k, int *indices, float *similarities) {
  std::vector<std::pair<float, int>> best;
  for (int query = 0; query < query_count; ++query) {
    const float *row = scores + size_t(query) * size_t(template_count);
    best.clear();
    for (int item = 0; item < template_count; ++item) {
      if (int(best.size()) == k && row[item] <= best.back().first) {
        continue;
      }
      // Descending by score; equal scores keep the lower index first, as a stable sort would.
      const auto at = std::upper_bound(
        best.begin(), best.end(), std::make_pair(row[item], item),
        [](const std::pair<float, int> &a, const std::pair<float, int> &b) { return a.first > b.first; });
      best.insert(at, {row[item], item});
      if (int(best.size()) > k) {
        best.pop_back();
      }
    }
    for (int rank = 0; rank < k; ++rank) {
      indices[query * k + rank] = best[size_t(rank)].second;
      similarities[query * k + rank] = best[size_t(rank)].first;
    }
  }
}

// Eight templates at a time, laid out dimension by dimension (lane = template), against
// `Queries` queries: each query's eight sums stay in vector registers and no sum is reduced
// across lanes (a row-by-row loop, which ended every dot product with a horizontal sum, took 1.1
// to 2 times as long; cv::gemm, OpenCV's own kernel, several times as long for this shape, a
// handful of queries against thousands of templates). With few
// queries the dimensions are split over several sums per query (`Chains`), so that eight
// independent additions are in flight: one chain of 64 waited on each addition in turn.
template <int Queries>
__attribute__((always_inline)) inline void blockScores(
  const float *block, int dimensions, const float *queries, int firstItem, int template_count, float *scores) {
  constexpr int Chains = Queries == 1 ? 4 : (8 + Queries - 1) / Queries;
  float sums[Queries][Chains][8] = {};
  int index = 0;
  for (; index + Chains <= dimensions; index += Chains) {
    for (int chain = 0; chain < Chains; ++chain) {
      const float *lanes = block + size_t(index + chain) * 8;
      for (int query = 0; query < Queries; ++query) {
        const float value = queries[size_t(query) * size_t(dimensions) + size_t(index + chain)];
        for (int lane = 0; lane < 8; ++lane) {
          sums[query][chain][lane] += value * lanes[lane];
        }
      }
    }
  }
  for (; index < dimensions; ++index) {
    const float *lanes = block + size_t(index) * 8;
    for (int query = 0; query < Queries; ++query) {
      const float value = queries[size_t(query) * size_t(dimensions) + size_t(index)];
      for (int lane = 0; lane < 8; ++lane) {
        sums[query][0][lane] += value * lanes[lane];
      }
    }
  }
  const int lanes = std::min(8, template_count - firstItem);
  for (int query = 0; query < Queries; ++query) {
    for (int lane = 0; lane < lanes; ++lane) {
      float sum = 0;
      for (int chain = 0; chain < Chains; ++chain) {
        sum += sums[query][chain][lane];
      }
      scores[size_t(query) * size_t(template_count) + size_t(firstItem + lane)] = sum;
    }
  }
}

// scores[q][t] for every block, queries eight at a time (eight registers of sums).
__attribute__((always_inline)) inline void indexScoresLoop(
  const float *blocked, int template_count, int dimensions, const float *queries, int query_count, float *scores) {
  const size_t blockSize = size_t(dimensions) * 8;
  for (int first = 0; first < query_count; first += 8) {
    const float *chunk = queries + size_t(first) * size_t(dimensions);
    float *rows = scores + size_t(first) * size_t(template_count);
    for (int item = 0; item < template_count; item += 8) {
      const float *block = blocked + size_t(item / 8) * blockSize;
      switch (std::min(8, query_count - first)) {
      case 8: blockScores<8>(block, dimensions, chunk, item, template_count, rows); break;
      case 7: blockScores<7>(block, dimensions, chunk, item, template_count, rows); break;
      case 6: blockScores<6>(block, dimensions, chunk, item, template_count, rows); break;
      case 5: blockScores<5>(block, dimensions, chunk, item, template_count, rows); break;
      case 4: blockScores<4>(block, dimensions, chunk, item, template_count, rows); break;
      case 3: blockScores<3>(block, dimensions, chunk, item, template_count, rows); break;
      case 2: blockScores<2>(block, dimensions, chunk, item, template_count, rows); break;
      default: blockScores<1>(block, dimensions, chunk, item, template_count, rows); break;
      }
    }
  }
}

__attribute__((target("avx2,fma"))) void indexScoresWide(
  const float *blocked, int template_count, int dimensions, const float *queries, int query_count, float *scores) {
  indexScoresLoop(blocked, template_count, dimensions, queries, query_count, scores);
}

void indexScoresPortable(
  const float *blocked, int template_count, int dimensions, const float *queries, int query_count, float *scores) {
  indexScoresLoop(blocked, template_count, dimensions, queries, query_count, scores);
}

}  // namespace

struct pm_template_index {
  int count = 0, dimensions = 0;
  // Blocks of eight templates, each `dimensions` x 8 floats; the last block padded with zeros.
  std::vector<float> blocked;
};

extern "C" {

pm_status pm_template_index_create(
  const float *templates, int template_count, int dimensions, pm_template_index **out) {
  return guarded([&] {
    if (template_count <= 0 || dimensions <= 0) {
      return fail(PM_BAD_ARGUMENT, "need templates of at least one dimension");
    }
    auto index = std::make_unique<pm_template_index>();
    index->count = template_count;
    index->dimensions = dimensions;
    index->blocked.assign(size_t((template_count + 7) / 8) * size_t(dimensions) * 8, 0.0f);
    for (int item = 0; item < template_count; ++item) {
      for (int dimension = 0; dimension < dimensions; ++dimension) {
        index->blocked[(size_t(item / 8) * size_t(dimensions) + size_t(dimension)) * 8 + size_t(item % 8)] =
          templates[size_t(item) * size_t(dimensions) + size_t(dimension)];
      }
    }
    *out = index.release();
    return PM_OK;
  });
}

void pm_template_index_free(pm_template_index *index) {
  delete index;
}

pm_status pm_template_index_nearest(
  const pm_template_index *index, const float *queries, int query_count, int k, int *indices, float *similarities) {
  return guarded([&] {
    if (query_count <= 0 || k <= 0 || k > index->count) {
      return fail(PM_BAD_ARGUMENT, "need queries and 1 <= k <= the number of templates");
    }
    std::vector<float> scores(size_t(query_count) * size_t(index->count), 0.0f);
    static const bool wide = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    (wide ? indexScoresWide : indexScoresPortable)(
      index->blocked.data(), index->count, index->dimensions, queries, query_count, scores.data());
    bestOf(scores.data(), query_count, index->count, k, indices, similarities);
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
