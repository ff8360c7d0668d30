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

// outputs[o] = bias[o] + sum over i of inputs[i] * kernel[i][o]; the loop over the outputs is
// innermost and contiguous, so it vectorises.
__attribute__((always_inline)) inline void dense(
  const float *inputs, int inputCount, const float *kernel, const float *bias, int outputCount, float *outputs) {
  std::memcpy(outputs, bias, sizeof(float) * size_t(outputCount));
  for (int input = 0; input < inputCount; ++input) {
    const float value = inputs[input];
    if (value == 0) {
      continue;  // after a ReLU, about half the inputs
    }
    const float *row = kernel + size_t(input) * size_t(outputCount);
#pragma clang loop vectorize(enable) interleave(enable)
    for (int output = 0; output < outputCount; ++output) {
      outputs[output] += value * row[output];
    }
  }
}

// A 3 x 3 convolution with zero padding of a height x width x channels image (channels
// innermost), then ReLU.
__attribute__((always_inline)) inline void convolve(
  const float *image, int height, int width, int channels, const float *kernel, const float *bias, int outputs,
  float *result) {
  std::vector<float> patch(size_t(channels) * 9);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int channel = 0; channel < channels; ++channel) {
        for (int row = 0; row < 3; ++row) {
          for (int column = 0; column < 3; ++column) {
            const int sy = y + row - 1, sx = x + column - 1;
            patch[size_t(channel * 9 + row * 3 + column)] =
              sy < 0 || sy >= height || sx < 0 || sx >= width ? 0 : image[(sy * width + sx) * channels + channel];
          }
        }
      }
      float *out = result + size_t(y * width + x) * size_t(outputs);
      dense(patch.data(), channels * 9, kernel, bias, outputs, out);
      for (int output = 0; output < outputs; ++output) {
        out[output] = std::max(out[output], 0.0f);
      }
    }
  }
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
  std::vector<float> hidden(size_t(network.hidden));
  for (int cell = 0; cell < count; ++cell) {
    convolve(
      cells + size_t(cell) * size_t(height * width), height, width, 1, w + network.kernel1, w + network.bias1,
      network.conv1, first.data());
    const std::vector<float> pooled = pool(first, height, width, network.conv1);
    convolve(
      pooled.data(), height / 2, width / 2, network.conv1, w + network.kernel2, w + network.bias2, network.conv2,
      second.data());
    const std::vector<float> flat = pool(second, height / 2, width / 2, network.conv2);
    dense(flat.data(), int(flat.size()), w + network.kernel3, w + network.bias3, network.hidden, hidden.data());
    for (float &value : hidden) {
      value = std::max(value, 0.0f);
    }
    dense(
      hidden.data(), network.hidden, w + network.kernel4, w + network.bias4, network.classes,
      scores + size_t(cell) * size_t(network.classes));
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
