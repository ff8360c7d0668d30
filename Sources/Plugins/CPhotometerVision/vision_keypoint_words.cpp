// Visual words for large households: a vocabulary drawn from the index's own descriptors and an
// inverted file, so that a query's shortlist counts the print it shares with each reference
// weighted by how rare that print is among the references (tf-idf), where the hash tables meet
// too few of the right meter's descriptors (docs/recognizers.md, *Visual words*).
#include "vision_internal.hpp"

#include <atomic>
#include <cmath>
#include <cstring>
#include <numeric>

namespace pm {

namespace {

using Word = KeypointWords::Word;

// 256 top words of 128 leaves each: 32,768 words. (In a prototype at 10,000 look-alike meters,
// 65,536 words ranked the right meter no better.)
constexpr int kTopWords = 256, kLeafWords = 128;
// Descriptors the vocabulary is drawn from (evenly over the index's rows), and k-majority's rounds.
constexpr int kSample = 131072, kRounds = 8;

Word wordOf(const uint8_t *bytes) {
  Word word;
  std::memcpy(word.data(), bytes, sizeof(Word));
  return word;
}

__attribute__((always_inline)) inline int nearestLoop(const Word *words, int count, const Word &query) {
  int best = 0, bestDistance = 257;
  for (int index = 0; index < count; ++index) {
    const Word &word = words[index];
    const int distance = __builtin_popcountll(word[0] ^ query[0]) + __builtin_popcountll(word[1] ^ query[1]) +
      __builtin_popcountll(word[2] ^ query[2]) + __builtin_popcountll(word[3] ^ query[3]);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = index;
    }
  }
  return best;
}

__attribute__((target("popcnt"))) int nearestPopcount(const Word *words, int count, const Word &query) {
  return nearestLoop(words, count, query);
}

int nearestPortable(const Word *words, int count, const Word &query) {
  return nearestLoop(words, count, query);
}

// The index in `words` of the word nearest `query` (the first of equals).
int nearest(const std::vector<Word> &words, const Word &query) {
  static const bool popcount = __builtin_cpu_supports("popcnt");
  return (popcount ? nearestPopcount : nearestPortable)(words.data(), int(words.size()), query);
}

int wordNumber(const KeypointWords &words, const Word &descriptor) {
  const int top = nearest(words.top, descriptor);
  return words.firstLeaf[size_t(top)] + nearest(words.leaves[size_t(top)], descriptor);
}

// k-majority clustering, k-means for binary descriptors (a centre is its members' bitwise
// majority): `count` centres started from distinct points drawn by `random`, then kRounds rounds
// of assigning on `threads` threads and re-centring. Every point when there are no more.
std::vector<Word> kMajority(const std::vector<Word> &points, int count, cv::RNG &random, int threads) {
  const int size = int(points.size());
  if (size <= count) {
    return points;
  }
  std::vector<int> order(static_cast<size_t>(size));
  std::iota(order.begin(), order.end(), 0);
  std::vector<Word> centres;
  for (int drawn = 0; drawn < count; ++drawn) {
    std::swap(order[size_t(drawn)], order[size_t(drawn + random.uniform(0, size - drawn))]);
    centres.push_back(points[size_t(order[size_t(drawn)])]);
  }
  std::vector<int> labels(static_cast<size_t>(size));
  for (int round = 0; round < kRounds; ++round) {
    onThreads(threads, [&](int worker) {
      for (int point = size * worker / threads; point < size * (worker + 1) / threads; ++point) {
        labels[size_t(point)] = nearest(centres, points[size_t(point)]);
      }
    });
    std::vector<int> members(static_cast<size_t>(count), 0);
    std::vector<std::array<int, 256>> ones(static_cast<size_t>(count), std::array<int, 256>{});
    for (int point = 0; point < size; ++point) {
      const int label = labels[size_t(point)];
      members[size_t(label)]++;
      const Word &word = points[size_t(point)];
      for (int bit = 0; bit < 256; ++bit) {
        ones[size_t(label)][size_t(bit)] += int((word[size_t(bit >> 6)] >> (bit & 63)) & 1);
      }
    }
    for (int centre = 0; centre < count; ++centre) {
      if (members[size_t(centre)] == 0) {
        continue;  // keeps its place: an empty cluster costs a word, no more
      }
      Word word{};
      for (int bit = 0; bit < 256; ++bit) {
        if (2 * ones[size_t(centre)][size_t(bit)] > members[size_t(centre)]) {
          word[size_t(bit >> 6)] |= uint64_t(1) << (bit & 63);
        }
      }
      centres[size_t(centre)] = word;
    }
  }
  return centres;
}

}  // namespace

KeypointWords buildKeypointWords(const cv::Mat &descriptors, const std::vector<int> &owner, int references, int threads) {
  KeypointWords words;
  const int rows = descriptors.rows;
  if (rows == 0 || references == 0) {
    return words;
  }
  threads = std::clamp(threads, 1, 16);
  std::vector<Word> sample;
  const int drawn = std::min(rows, kSample);
  sample.reserve(size_t(drawn));
  for (int index = 0; index < drawn; ++index) {
    sample.push_back(wordOf(descriptors.ptr<uint8_t>(int(int64_t(index) * rows / drawn))));
  }
  cv::RNG random(20261127);
  words.top = kMajority(sample, kTopWords, random, threads);
  const int tops = int(words.top.size());
  std::vector<std::vector<Word>> groups(static_cast<size_t>(tops));
  for (const Word &word : sample) {
    groups[size_t(nearest(words.top, word))].push_back(word);
  }
  words.leaves.resize(size_t(tops));
  std::atomic<int> next{0};
  onThreads(threads, [&](int) {
    for (int top = next++; top < tops; top = next++) {
      cv::RNG own(uint64_t(1000 + top));  // per top word, so that any thread count draws alike
      words.leaves[size_t(top)] =
        groups[size_t(top)].empty() ? std::vector<Word>{words.top[size_t(top)]} :
                                      kMajority(groups[size_t(top)], kLeafWords, own, 1);
    }
  });
  words.firstLeaf.resize(size_t(tops));
  int wordCount = 0;
  for (int top = 0; top < tops; ++top) {
    words.firstLeaf[size_t(top)] = wordCount;
    wordCount += int(words.leaves[size_t(top)].size());
  }
  // Each row as (word, reference), sorted: a reference's occurrences of a word sit together.
  std::vector<uint64_t> pairs(static_cast<size_t>(rows));
  onThreads(threads, [&](int worker) {
    for (int row = rows * worker / threads; row < rows * (worker + 1) / threads; ++row) {
      const auto word = uint64_t(wordNumber(words, wordOf(descriptors.ptr<uint8_t>(row))));
      pairs[size_t(row)] = (word << 32) | uint32_t(owner[size_t(row)]);
    }
  });
  words.rowWord.resize(size_t(rows));
  for (int row = 0; row < rows; ++row) {
    words.rowWord[size_t(row)] = int(pairs[size_t(row)] >> 32);
  }
  // The index lays each reference's rows together, in order.
  words.firstRow.assign(size_t(references) + 1, 0);
  for (int row = 0; row < rows; ++row) {
    words.firstRow[size_t(owner[size_t(row)]) + 1]++;
  }
  std::partial_sum(words.firstRow.begin(), words.firstRow.end(), words.firstRow.begin());
  std::sort(pairs.begin(), pairs.end());
  words.postingStart.assign(size_t(wordCount) + 1, 0);
  std::vector<int> occurrences;
  for (size_t position = 0; position < pairs.size();) {
    size_t end = position;
    while (end < pairs.size() && pairs[end] == pairs[position]) {
      ++end;
    }
    words.postingStart[size_t(pairs[position] >> 32) + 1]++;
    words.postingReference.push_back(int(uint32_t(pairs[position])));
    occurrences.push_back(int(end - position));
    position = end;
  }
  std::partial_sum(words.postingStart.begin(), words.postingStart.end(), words.postingStart.begin());
  words.idf.assign(size_t(wordCount), 0);
  words.postingWeight.assign(words.postingReference.size(), 0);
  std::vector<double> totals(static_cast<size_t>(references), 0);
  for (int word = 0; word < wordCount; ++word) {
    const int first = words.postingStart[size_t(word)], last = words.postingStart[size_t(word) + 1];
    if (first == last) {
      continue;
    }
    words.idf[size_t(word)] = float(std::log(double(references) / double(last - first)));
    for (int posting = first; posting < last; ++posting) {
      const float weight = float(occurrences[size_t(posting)]) * words.idf[size_t(word)];
      words.postingWeight[size_t(posting)] = weight;
      totals[size_t(words.postingReference[size_t(posting)])] += weight;
    }
  }
  for (size_t posting = 0; posting < words.postingWeight.size(); ++posting) {
    const double total = totals[size_t(words.postingReference[posting])];
    words.postingWeight[posting] = total > 0 ? float(words.postingWeight[posting] / total) : 0;
  }
  return words;
}

std::vector<int> wordsOf(const KeypointWords &words, const cv::Mat &query) {
  std::vector<int> numbers(static_cast<size_t>(words.top.empty() ? 0 : query.rows));
  for (size_t row = 0; row < numbers.size(); ++row) {
    numbers[row] = wordNumber(words, wordOf(query.ptr<uint8_t>(int(row))));
  }
  return numbers;
}

std::vector<int> wordShortlist(
  const KeypointWords &words, const std::vector<int> &queryWords, int references, int count) {
  if (words.top.empty() || queryWords.empty() || count <= 0) {
    return {};
  }
  std::vector<int> numbers = queryWords;
  std::sort(numbers.begin(), numbers.end());
  std::vector<std::pair<int, float>> weights;  // (word, occurrences x idf)
  double total = 0;
  for (size_t position = 0; position < numbers.size();) {
    size_t end = position;
    while (end < numbers.size() && numbers[end] == numbers[position]) {
      ++end;
    }
    const float weight = float(end - position) * words.idf[size_t(numbers[position])];
    if (weight > 0) {
      weights.emplace_back(numbers[position], weight);
      total += weight;
    }
    position = end;
  }
  std::vector<float> scores(static_cast<size_t>(references), 0);
  for (const auto &[word, weight] : weights) {
    const float share = float(weight / total);
    for (int posting = words.postingStart[size_t(word)]; posting < words.postingStart[size_t(word) + 1]; ++posting) {
      scores[size_t(words.postingReference[size_t(posting)])] += std::min(share, words.postingWeight[size_t(posting)]);
    }
  }
  std::vector<int> order(static_cast<size_t>(references));
  std::iota(order.begin(), order.end(), 0);
  const int shortlist = std::min(count, references);
  std::partial_sort(order.begin(), order.begin() + shortlist, order.end(), [&scores](int a, int b) {
    return scores[size_t(a)] != scores[size_t(b)] ? scores[size_t(a)] > scores[size_t(b)] : a < b;
  });
  order.resize(size_t(shortlist));
  while (!order.empty() && scores[size_t(order.back())] <= 0) {
    order.pop_back();
  }
  return order;
}

}  // namespace pm
