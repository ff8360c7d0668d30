// Digit network: the forward pass of a small convolutional network over cell images.
#include "photometer_vision.h"
#include "vision_internal.hpp"

#include <cstring>

using namespace pm;

struct pm_network {
  int conv1 = 0, conv2 = 0, hidden = 0, classes = 0;
  int width = 0, height = 0;
  std::vector<float> weights;
  // Offsets of each layer's kernel and bias in `weights`.
  size_t kernel1 = 0, bias1 = 0, kernel2 = 0, bias2 = 0, kernel3 = 0, bias3 = 0, kernel4 = 0, bias4 = 0, end = 0;
};

namespace {

// The layer widths the forward pass is compiled for, powers of two up to 256: its accumulators
// are arrays of a size known at compile time, which stay in vector registers. (A loop over an
// output array in memory loaded and stored it for every input, and skipping the inputs a ReLU
// had zeroed cost more in mispredicted branches than it saved: 0.9 ms for 14 cells of the
// shipped network, now 0.3.)
bool supportedWidth(int outputs) {
  return outputs >= 1 && outputs <= 256 && (outputs & (outputs - 1)) == 0;
}

// outputs[o] = ReLU(bias[o] + sum over i of inputs[i] * kernel[i][o]): the hidden layer.
template <int Outputs>
__attribute__((always_inline)) inline void dense(
  const float *inputs, int inputCount, const float *kernel, const float *bias, float *outputs) {
  float sums[Outputs];
  std::memcpy(sums, bias, sizeof(sums));
  for (int input = 0; input < inputCount; ++input) {
    const float value = inputs[input];
    const float *row = kernel + size_t(input) * Outputs;
    for (int output = 0; output < Outputs; ++output) {
      sums[output] += value * row[output];
    }
  }
  for (int output = 0; output < Outputs; ++output) {
    outputs[output] = std::max(sums[output], 0.0f);
  }
}

// A 3 x 3 convolution with zero padding of a height x width x channels image (channels
// innermost), then ReLU. `padded` is scratch for the image with a border of zeros.
template <int Outputs>
__attribute__((always_inline)) inline void convolve(
  const float *image, int height, int width, int channels, const float *kernel, const float *bias,
  std::vector<float> &padded, float *result) {
  const int paddedWidth = width + 2;
  padded.assign(size_t(height + 2) * size_t(paddedWidth) * size_t(channels), 0.0f);
  for (int y = 0; y < height; ++y) {
    std::memcpy(
      &padded[(size_t(y + 1) * size_t(paddedWidth) + 1) * size_t(channels)], image + size_t(y * width * channels),
      sizeof(float) * size_t(width * channels));
  }
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      float sums[Outputs];
      std::memcpy(sums, bias, sizeof(sums));
      for (int channel = 0; channel < channels; ++channel) {
        for (int tap = 0; tap < 9; ++tap) {
          const float value =
            padded[(size_t(y + tap / 3) * size_t(paddedWidth) + size_t(x + tap % 3)) * size_t(channels) + size_t(channel)];
          // The kernel's rows are in patch order: channel, then row and column of the tap.
          const float *row = kernel + size_t(channel * 9 + tap) * Outputs;
          for (int output = 0; output < Outputs; ++output) {
            sums[output] += value * row[output];
          }
        }
      }
      float *out = result + size_t(y * width + x) * Outputs;
      for (int output = 0; output < Outputs; ++output) {
        out[output] = std::max(sums[output], 0.0f);
      }
    }
  }
}

// The layer functions for a width that supportedWidth allows. (A macro rather than a generic
// lambda: a lambda's body is not compiled for the AVX2 target of classifyWide it is called from.)
#define PM_FOR_WIDTH(outputs, call)                                                                                    \
  switch (outputs) {                                                                                                   \
  case 1: call(1); break;                                                                                              \
  case 2: call(2); break;                                                                                              \
  case 4: call(4); break;                                                                                              \
  case 8: call(8); break;                                                                                              \
  case 16: call(16); break;                                                                                            \
  case 32: call(32); break;                                                                                            \
  case 64: call(64); break;                                                                                            \
  case 128: call(128); break;                                                                                          \
  default: call(256); break;                                                                                           \
  }

// 2 x 2 max pooling of a height x width x channels image.
std::vector<float> pool(const std::vector<float> &image, int height, int width, int channels) {
  std::vector<float> result(size_t(height / 2) * size_t(width / 2) * size_t(channels));
  for (int y = 0; y < height / 2; ++y) {
    for (int x = 0; x < width / 2; ++x) {
      for (int channel = 0; channel < channels; ++channel) {
        auto at = [&](int dy, int dx) { return image[size_t(((2 * y + dy) * width + 2 * x + dx) * channels + channel)]; };
        result[size_t((y * (width / 2) + x) * channels + channel)] =
          std::max(std::max(at(0, 0), at(0, 1)), std::max(at(1, 0), at(1, 1)));
      }
    }
  }
  return result;
}

__attribute__((always_inline)) inline void classifyLoop(
  const pm_network &network, const float *cells, int count, float *scores) {
  const float *w = network.weights.data();
  const int height = network.height, width = network.width;
  std::vector<float> first(size_t(height * width * network.conv1));
  std::vector<float> second(size_t((height / 2) * (width / 2) * network.conv2));
  std::vector<float> hidden(size_t(network.hidden)), padded;
  for (int cell = 0; cell < count; ++cell) {
    const float *image = cells + size_t(cell) * size_t(height * width);
#define PM_CONVOLVE_1(n) convolve<n>(image, height, width, 1, w + network.kernel1, w + network.bias1, padded, first.data())
    PM_FOR_WIDTH(network.conv1, PM_CONVOLVE_1)
    const std::vector<float> pooled = pool(first, height, width, network.conv1);
#define PM_CONVOLVE_2(n)                                                                                               \
  convolve<n>(                                                                                                         \
    pooled.data(), height / 2, width / 2, network.conv1, w + network.kernel2, w + network.bias2, padded, second.data())
    PM_FOR_WIDTH(network.conv2, PM_CONVOLVE_2)
    const std::vector<float> flat = pool(second, height / 2, width / 2, network.conv2);
#define PM_DENSE_3(n) dense<n>(flat.data(), int(flat.size()), w + network.kernel3, w + network.bias3, hidden.data())
    PM_FOR_WIDTH(network.hidden, PM_DENSE_3)
    // The classes, a handful: a plain loop.
    float *out = scores + size_t(cell) * size_t(network.classes);
    for (int output = 0; output < network.classes; ++output) {
      float sum = w[network.bias4 + size_t(output)];
      for (int input = 0; input < network.hidden; ++input) {
        sum += hidden[size_t(input)] * w[network.kernel4 + size_t(input) * size_t(network.classes) + size_t(output)];
      }
      out[output] = sum;
    }
#undef PM_CONVOLVE_1
#undef PM_CONVOLVE_2
#undef PM_DENSE_3
  }
}

__attribute__((target("avx2,fma"))) void classifyWide(
  const pm_network &network, const float *cells, int count, float *scores) {
  classifyLoop(network, cells, count, scores);
}

void classifyPortable(const pm_network &network, const float *cells, int count, float *scores) {
  classifyLoop(network, cells, count, scores);
}

}  // namespace

extern "C" {

pm_status pm_network_create(
  int conv1, int conv2, int hidden, int classes, const float *weights, size_t weight_count, pm_network **out) {
  return guarded([&] {
    auto network = std::make_unique<pm_network>();
    network->width = pm_cell_width();
    network->height = pm_cell_height();
    if (conv1 <= 0 || conv2 <= 0 || hidden <= 0 || classes <= 0 || network->width % 4 || network->height % 4) {
      return fail(PM_BAD_ARGUMENT, "a network needs positive layer sizes");
    }
    if (!supportedWidth(conv1) || !supportedWidth(conv2) || !supportedWidth(hidden)) {
      return fail(PM_BAD_ARGUMENT, "the network's layers must be 1, 2, 4, ... or 256 wide (a power of two)");
    }
    network->conv1 = conv1;
    network->conv2 = conv2;
    network->hidden = hidden;
    network->classes = classes;
    size_t offset = 0;
    auto layer = [&](size_t inputs, size_t outputs, size_t &kernel, size_t &bias) {
      kernel = offset;
      bias = kernel + inputs * outputs;
      offset = bias + outputs;
    };
    const size_t flat = size_t(network->width / 4) * size_t(network->height / 4) * size_t(conv2);
    layer(9, size_t(conv1), network->kernel1, network->bias1);
    layer(9 * size_t(conv1), size_t(conv2), network->kernel2, network->bias2);
    layer(flat, size_t(hidden), network->kernel3, network->bias3);
    layer(size_t(hidden), size_t(classes), network->kernel4, network->bias4);
    if (offset != weight_count) {
      return fail(PM_BAD_ARGUMENT, "the weights do not fit the layer sizes");
    }
    network->weights.assign(weights, weights + weight_count);
    *out = network.release();
    return PM_OK;
  });
}

void pm_network_free(pm_network *network) {
  delete network;
}

pm_status pm_network_classify(const pm_network *network, const float *cells, int count, float *scores) {
  return guarded([&] {
    static const bool wide = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    (wide ? classifyWide : classifyPortable)(*network, cells, count, scores);
    return PM_OK;
  });
}

}  // extern "C"
