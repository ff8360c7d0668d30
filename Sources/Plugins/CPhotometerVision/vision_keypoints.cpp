// Keypoints: one hashed index over every reference and its pose-voted shortlist, verified in
// parallel (detection: vision_keypoint_detection.cpp; verification: vision_keypoint_verification.cpp).
#include "photometer_vision.h"
#include "vision_internal.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <exception>
#include <mutex>
#include <numeric>
#include <system_error>
#include <thread>

using namespace pm;

namespace {

constexpr int hashTables = 10, maxBucket = 150;
// Lowe's ratio test for matching a query with one reference.
constexpr float kRatio = 0.85f;

// Key bits: 16 up to 150,000 descriptors (about 100 references), one more per doubling beyond,
// so that buckets keep their size, and a query its cost, as references are added.
constexpr int maxKeyBits = 24;

int hashBitsFor(int rows) {
  int bits = 16;
  while (bits < maxKeyBits && (rows >> (bits - 16)) > 150000) {
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

// A 256-bit ORB descriptor as four words, loaded once to be compared with many.
struct Descriptor {
  uint64_t words[4];

  explicit Descriptor(const uint8_t *bytes) { std::memcpy(words, bytes, 32); }
};

__attribute__((always_inline)) inline int hamming(const Descriptor &a, const uint8_t *b) {
  uint64_t y[4];
  std::memcpy(y, b, 32);
  return __builtin_popcountll(a.words[0] ^ y[0]) + __builtin_popcountll(a.words[1] ^ y[1]) +
    __builtin_popcountll(a.words[2] ^ y[2]) + __builtin_popcountll(a.words[3] ^ y[3]);
}

// A match of a query keypoint with a reference keypoint says where the reference would be in the
// query: turned by the difference of their orientations, scaled by 1.2 per pyramid level between
// them, and its centre shifted to where the match puts it. The right meter's matches agree on one
// such pose; a glyph every meter shares puts each of them somewhere else. Poses are binned (30
// degrees, one level, kShiftBin query pixels of shift) and a reference's shortlist votes are those
// of its best pose, counted with the neighbouring bins so that a pose on a bin's edge is not split.
struct PoseVote {
  uint64_t key;
  int weight;
};

constexpr int kAngleBins = 12;
// A tenth of the side photos are shrunk to (KeypointMatcher.Settings.maxSide, 640).
constexpr float kShiftBin = 64;

inline uint64_t poseKey(int reference, int angle, int octave, int x, int y) {
  return (uint64_t(reference) << 32) | (uint64_t(angle) << 24) | (uint64_t(octave) << 16) | (uint64_t(x) << 8) |
    uint64_t(y);
}

inline PoseVote poseVote(
  const pm_keypoint_index &index, int reference, int row, cv::Point2f point, float angle, int octave, int weight) {
  static const auto scales = [] {
    std::array<float, 15> table{};
    for (int step = -7; step <= 7; ++step) {
      table[size_t(step + 7)] = std::pow(1.2f, float(step));
    }
    return table;
  }();
  float turn = angle - index.rowAngles[size_t(row)];
  if (turn < 0) {
    turn += 360;
  }
  const int step = std::clamp(octave - int(index.rowOctaves[size_t(row)]), -7, 7);
  const float scale = scales[size_t(step + 7)], radians = turn * float(CV_PI / 180);
  const float cosine = scale * std::cos(radians), sine = scale * std::sin(radians);
  const cv::Size size = index.sizes[size_t(reference)];
  const cv::Point2f from = index.rowPoints[size_t(row)] - cv::Point2f(float(size.width) / 2, float(size.height) / 2);
  const float shiftX = point.x - (cosine * from.x - sine * from.y);
  const float shiftY = point.y - (sine * from.x + cosine * from.y);
  const auto shiftBin = [](float shift) { return std::clamp(int(std::floor(shift / kShiftBin)) + 128, 0, 254); };
  return {
    poseKey(reference, std::min(int(turn / (360 / kAngleBins)), kAngleBins - 1), step + 8, shiftBin(shiftX),
      shiftBin(shiftY)),
    weight};
}

// Each reference's votes: the weight of its best pose with its neighbours (next angle, shift).
void tallyPoses(std::vector<PoseVote> &poses, int *votes) {
  std::sort(poses.begin(), poses.end(), [](const PoseVote &a, const PoseVote &b) { return a.key < b.key; });
  size_t unique = 0;
  for (size_t position = 0; position < poses.size(); ++position) {
    if (unique > 0 && poses[unique - 1].key == poses[position].key) {
      poses[unique - 1].weight += poses[position].weight;
    } else {
      poses[unique++] = poses[position];
    }
  }
  poses.resize(unique);
  const auto weightAt = [&poses](uint64_t key) {
    const auto found = std::lower_bound(
      poses.begin(), poses.end(), key, [](const PoseVote &vote, uint64_t wanted) { return vote.key < wanted; });
    return found != poses.end() && found->key == key ? found->weight : 0;
  };
  for (const PoseVote &pose : poses) {
    const int reference = int(pose.key >> 32), angle = int(pose.key >> 24) & 0xff, octave = int(pose.key >> 16) & 0xff;
    const int x = int(pose.key >> 8) & 0xff, y = int(pose.key) & 0xff;
    int total = 0;
    for (int turn = 0; turn < 2; ++turn) {
      const int nextAngle = (angle + turn) % kAngleBins;
      for (int dx = 0; dx < 2; ++dx) {
        for (int dy = 0; dy < 2; ++dy) {
          total += weightAt(poseKey(reference, nextAngle, octave, x + dx, y + dy));
        }
      }
    }
    votes[reference] = std::max(votes[reference], total);
  }
}

// For each query descriptor, the nearest row of each of the `neighbours` nearest references
// votes for that reference's pose, 12 / rank: a look-alike meter's copy of a shared glyph may be
// nearer than the right meter's, which still gets its share. A pose, not the reference as such:
// the right meter's matches agree on one, shared print puts each look-alike elsewhere. (How the
// ranks, neighbours and bins were chosen: docs/recognizers.md, *Keypoint matcher*.)
constexpr int kNeighbours = 4;

// Beyond 16 key bits a table is probed at the query's key and at each key that differs from it
// in one of the bits added beyond 16 (multi-probe LSH): each bit added to keep buckets small as
// references are added lowers the chance that a true neighbour shares the key ((1 - 40/256)^bits
// for a neighbour 40 bits away: 6.6% a table at 16 bits, 2.0% at 23; 4.6% with the probes).
// Where candidates are checked by their words' poses (past 5,000 references) the key alone is
// probed: the words find what the probes found, for a fraction of their cost
// (docs/recognizers.md, *One probe past 5,000 meters*).
constexpr int probedBits = 16;

// The index rows one query row has been compared with (a row may lie in the buckets it probes in
// several tables): an open-addressed set of at most hashTables * (1 + maxKeyBits - probedBits) *
// maxBucket rows, emptied for the next query row by a new stamp rather than by clearing. (One
// stamp per index row instead cost 4 bytes per indexed descriptor per worker, zero-filled per
// query: 40-80 MB at 10,000 meters.)
class SeenRows {
 public:
  // Marks `candidate` seen; false when it had been since the last `next()`.
  bool insert(int candidate) {
    uint32_t slot = (uint32_t(candidate) * 2654435761u) >> (32 - kBits);
    while (stamps[slot] == stamp) {
      if (rows[slot] == candidate) return false;
      slot = (slot + 1) & (kSize - 1);
    }
    stamps[slot] = stamp;
    rows[slot] = candidate;
    return true;
  }

  void next() { ++stamp; }

 private:
  // Twice the most rows a query row can meet, or more: probes stay short.
  static constexpr int kBits = 15;
  static constexpr uint32_t kSize = 1u << kBits;
  static_assert(kSize >= 2 * uint32_t(hashTables * (1 + maxKeyBits - probedBits) * maxBucket));
  std::vector<int> rows = std::vector<int>(kSize);
  std::vector<int> stamps = std::vector<int>(kSize, 0);
  int stamp = 1;
};

// The pose votes of the query's rows `first..<last` (`shortlistVotes` splits the rows among threads).
__attribute__((always_inline)) inline void shortlistPosesLoop(
  const pm_keypoint_index &index, const pm_keypoints &query, int maxDistance, bool multiProbe, int first, int last,
  std::vector<PoseVote> &poses) {
  constexpr int neighbours = kNeighbours;
  const cv::Mat &descriptors = query.descriptors;
  const int keyBits = index.keyBits.empty() ? 0 : int(index.keyBits.front().size());
  const int probes = multiProbe ? 1 + std::max(0, keyBits - probedBits) : 1;
  SeenRows seen;
  for (int row = first; row < last; ++row, seen.next()) {
    const uint8_t *descriptor = descriptors.ptr<uint8_t>(row);
    const Descriptor words(descriptor);
    std::pair<int, int> best[neighbours];  // (distance, descriptor row), distinct references
    int found = 0;
    uint32_t tableKeys[hashTables];
    for (int table = 0; table < hashTables; ++table) {
      tableKeys[table] = hashKey(descriptor, index.keyBits[size_t(table)]);
    }
    for (int probe = 0; probe < hashTables * probes; ++probe) {
      // Each table's key, then the keys one of its bits past `probedBits` away.
      const int table = probe / probes, flip = probe % probes;
      const uint32_t key = tableKeys[table] ^ (flip == 0 ? 0u : 1u << (flip - 1));
      const auto &offsets = index.offsets[size_t(table)];
      // A crowded bucket holds a pattern every meter has (plain edges, the same font): it
      // costs time and tells nothing.
      if (offsets[key + 1] - offsets[key] > maxBucket) {
        continue;
      }
      const auto &rows = index.rows[size_t(table)];
      for (int slot = offsets[key]; slot < offsets[key + 1]; ++slot) {
        // The bucket's rows lie anywhere in the index: ask for one a few slots ahead.
        if (slot + 4 < offsets[key + 1]) {
          __builtin_prefetch(index.descriptors.ptr<uint8_t>(rows[size_t(slot + 4)]));
        }
        const int candidate = rows[size_t(slot)];
        if (!seen.insert(candidate)) {
          continue;
        }
        const int distance = hamming(words, index.descriptors.ptr<uint8_t>(candidate));
        if (distance > maxDistance) {
          continue;
        }
        const int owner = index.owner[size_t(candidate)];
        int position = 0;
        while (position < found && index.owner[size_t(best[position].second)] != owner) {
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
      const int candidate = best[rank].second;
      poses.push_back(poseVote(
        index, index.owner[size_t(candidate)], candidate, query.points[size_t(row)], query.angles[size_t(row)],
        query.octaves[size_t(row)], 12 / (rank + 1)));
    }
  }
}

__attribute__((target("popcnt"))) void shortlistPosesPopcount(
  const pm_keypoint_index &index, const pm_keypoints &query, int maxDistance, bool multiProbe, int first, int last,
  std::vector<PoseVote> &poses) {
  shortlistPosesLoop(index, query, maxDistance, multiProbe, first, last, poses);
}

void shortlistPosesPortable(
  const pm_keypoint_index &index, const pm_keypoints &query, int maxDistance, bool multiProbe, int first, int last,
  std::vector<PoseVote> &poses) {
  shortlistPosesLoop(index, query, maxDistance, multiProbe, first, last, poses);
}

// The index's hash tables, built on `threads` threads, a table at a time each: each table's
// bits are drawn first, in order, so that the tables are the same for any number of threads.
void buildHashTables(pm_keypoint_index &index, int threads) {
  cv::RNG random(20261122);
  const int rowCount = index.descriptors.rows;
  const int hashBits = hashBitsFor(rowCount);
  index.keyBits.assign(hashTables, std::vector<int>(static_cast<size_t>(hashBits), 0));
  for (auto &bits : index.keyBits) {
    for (int &bit : bits) {
      bit = random.uniform(0, 256);
    }
  }
  index.offsets.assign(hashTables, {});
  index.rows.assign(hashTables, {});
  std::atomic<int> next{0};
  onThreads(std::clamp(threads, 1, hashTables), [&](int) {
    for (int table = next++; table < hashTables; table = next++) {
      const std::vector<int> &bits = index.keyBits[size_t(table)];
      std::vector<int> counts((1 << hashBits) + 1, 0);
      std::vector<uint32_t> keys(static_cast<size_t>(rowCount), 0);
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
      index.offsets[size_t(table)] = std::move(counts);
      index.rows[size_t(table)] = std::move(rows);
    }
  });
}

// The query's rows are split among `threads`; a pose's votes are summed whatever the order, so
// the tally is the same as on one thread.
void shortlistVotes(
  const pm_keypoint_index &index, const pm_keypoints &query, int maxDistance, bool multiProbe, int threads,
  int *votes) {
  static const bool popcount = __builtin_cpu_supports("popcnt");
  const int rows = query.descriptors.rows;
  std::vector<std::vector<PoseVote>> parts(static_cast<size_t>(threads));
  onThreads(threads, [&](int worker) {
    auto &poses = parts[size_t(worker)];
    const int first = rows * worker / threads, last = rows * (worker + 1) / threads;
    poses.reserve(size_t(last - first) * kNeighbours);
    (popcount ? shortlistPosesPopcount : shortlistPosesPortable)(
      index, query, maxDistance, multiProbe, first, last, poses);
  });
  std::vector<PoseVote> poses = std::move(parts[0]);
  for (size_t part = 1; part < parts.size(); ++part) {
    poses.insert(poses.end(), parts[part].begin(), parts[part].end());
  }
  tallyPoses(poses, votes);
}

// Weak geometric consistency (Jegou et al., 2008): each head-on keypoint of a candidate that falls
// in a word one of the query's keypoints falls in votes, once per such pair, for the pose the pair
// puts the candidate at; its score is its best pose's votes, tallied as the hash tables' shortlist
// tallies them. `numbers` holds the query rows' words. A word held by more than
// kBurstyWord query keypoints (a repeated pattern) casts no vote.
constexpr int kBurstyWord = 4;

std::vector<int> consistentVotes(
  const pm_keypoint_index &index, const pm_keypoints &query, const std::vector<int> &numbers,
  const std::vector<int> &candidates, int threads) {
  // The query's rows by word (CSR over every word number).
  const auto &words = index.words;
  const size_t wordCount = words.idf.size();
  std::vector<int> start(wordCount + 1, 0), rows(numbers.size(), 0);
  for (int number : numbers) {
    start[size_t(number) + 1]++;
  }
  std::partial_sum(start.begin(), start.end(), start.begin());
  std::vector<int> cursor(start.begin(), start.end() - 1);
  for (size_t row = 0; row < numbers.size(); ++row) {
    rows[size_t(cursor[size_t(numbers[row])]++)] = int(row);
  }
  std::vector<int> scores(candidates.size(), 0);
  // Each worker tallies distinct candidates, so one votes array serves them all.
  std::vector<int> votes(static_cast<size_t>(index.references), 0);
  std::atomic<int> next{0};
  onThreads(threads, [&](int) {
    std::vector<PoseVote> poses;
    for (int position = next++; position < int(candidates.size()); position = next++) {
      const int reference = candidates[size_t(position)];
      poses.clear();
      for (int row = words.firstRow[size_t(reference)]; row < words.firstRow[size_t(reference) + 1]; ++row) {
        const int word = words.rowWord[size_t(row)];
        const int first = start[size_t(word)], last = start[size_t(word) + 1];
        if (last - first > kBurstyWord) {
          continue;
        }
        for (int slot = first; slot < last; ++slot) {
          const int queryRow = rows[size_t(slot)];
          poses.push_back(poseVote(
            index, reference, row, query.points[size_t(queryRow)], query.angles[size_t(queryRow)],
            query.octaves[size_t(queryRow)], 1));
        }
      }
      tallyPoses(poses, votes.data());
      scores[size_t(position)] = votes[size_t(reference)];
    }
  });
  return scores;
}

// The first `count` references by pose votes, none without.
std::vector<int> mostVoted(const int *votes, int references, int count) {
  std::vector<int> order(static_cast<size_t>(references), 0);
  std::iota(order.begin(), order.end(), 0);
  count = std::min(count, references);
  std::partial_sort(
    order.begin(), order.begin() + count, order.end(), [votes](int a, int b) { return votes[a] > votes[b]; });
  order.resize(size_t(count));
  while (!order.empty() && votes[order.back()] == 0) {
    order.pop_back();
  }
  return order;
}

// The references to verify, best first, at most `verify`: those with most pose votes (into
// `votes`). With words, the pose votes' first and the words' first, taken in turn, each once;
// with `posed` as well, the first `posed` of each ranking are taken so and ranked again by
// `consistentVotes` (ties in that order): at thousands of meters the hash tables meet few of the
// right meter's descriptors, and the words' ranking counts print that every look-alike shares;
// words whose keypoints agree on one pose are the meter's own.
std::vector<int> shortlistOf(
  const pm_keypoint_index &index, const pm_keypoints &query, int maxDistance, int verify, int posed, int threads,
  int *votes) {
  shortlistVotes(index, query, maxDistance, posed <= 0, threads, votes);
  if (index.words.top.empty()) {
    return mostVoted(votes, index.references, verify);
  }
  const int pool = std::max(posed, verify);
  const std::vector<int> numbers = pm::wordsOf(index.words, query.descriptors);
  const std::vector<int> voted = mostVoted(votes, index.references, pool);
  const std::vector<int> named = pm::wordShortlist(index.words, numbers, index.references, pool);
  std::vector<int> candidates;
  std::vector<bool> taken(static_cast<size_t>(index.references), false);
  for (size_t rank = 0; rank < voted.size() || rank < named.size(); ++rank) {
    for (const std::vector<int> *list : {&voted, &named}) {
      if (rank < list->size() && !taken[size_t((*list)[rank])]) {
        taken[size_t((*list)[rank])] = true;
        candidates.push_back((*list)[rank]);
      }
    }
  }
  if (posed <= 0) {
    candidates.resize(std::min(candidates.size(), size_t(verify)));
    return candidates;
  }
  const std::vector<int> consistent = consistentVotes(index, query, numbers, candidates, threads);
  std::vector<int> ranks(candidates.size());
  std::iota(ranks.begin(), ranks.end(), 0);
  std::sort(ranks.begin(), ranks.end(), [&consistent](int a, int b) {
    return consistent[size_t(a)] != consistent[size_t(b)] ? consistent[size_t(a)] > consistent[size_t(b)] : a < b;
  });
  ranks.resize(std::min(ranks.size(), size_t(verify)));
  std::vector<int> chosen;
  for (int rank : ranks) {
    chosen.push_back(candidates[size_t(rank)]);
  }
  return chosen;
}

}  // namespace

extern "C" {

pm_status pm_keypoint_index_build(
  pm_keypoints *const *references, int count, int threads, int words, pm_keypoint_index **out) {
  return guarded([&] {
    *out = nullptr;
    auto index = std::make_unique<pm_keypoint_index>();
    index->references = count;
    std::vector<cv::Mat> parts;
    for (int reference = 0; reference < count; ++reference) {
      const pm_keypoints &own = *references[reference];
      index->sources.push_back(&own);
      index->scales.push_back(own.scale);
      index->sizes.push_back(own.size);
      const int rows = std::clamp(own.headOn, 0, own.descriptors.rows);
      if (rows == 0) {
        continue;
      }
      parts.push_back(own.descriptors.rowRange(0, rows));
      index->rowPoints.insert(index->rowPoints.end(), own.points.begin(), own.points.begin() + rows);
      index->rowAngles.insert(index->rowAngles.end(), own.angles.begin(), own.angles.begin() + rows);
      index->rowOctaves.insert(index->rowOctaves.end(), own.octaves.begin(), own.octaves.begin() + rows);
      index->owner.insert(index->owner.end(), size_t(rows), reference);
    }
    if (!parts.empty()) {
      cv::vconcat(parts, index->descriptors);
      buildHashTables(*index, threads);
      if (words) {
        index->words = buildKeypointWords(index->descriptors, index->owner, count, threads);
      }
    }
    *out = index.release();
    return PM_OK;
  });
}

void pm_keypoint_index_free(pm_keypoint_index *index) {
  delete index;
}

pm_status pm_keypoint_index_query(
  const pm_keypoint_index *index, const pm_keypoints *query, int maxDistance, int verify, int posed, int threads,
  int *votes, int *verified, int *inliers, double *homographies) {
  return guarded([&] {
    std::fill(votes, votes + index->references, 0);
    std::fill(verified, verified + verify, -1);
    std::fill(inliers, inliers + verify, 0);
    std::fill(homographies, homographies + 9 * verify, 0.0);
    if (index->descriptors.empty() || query->descriptors.rows == 0) {
      return PM_OK;
    }
    threads = std::clamp(threads, 1, 16);
    const std::vector<int> order = shortlistOf(*index, *query, maxDistance, verify, posed, threads, votes);
    const int shortlist = int(order.size());
    // The shortlist is verified best first, each reference by a worker of its own; once one
    // is far beyond chance no later one starts. (Verifying two more after it, as before the pose
    // shortlist, named the same meters in 10-20% more time.)
    std::atomic<int> next{0};
    std::atomic<bool> enough{false};
    onThreads(threads, [&](int) {
      for (int rank = next++; rank < shortlist && !enough; rank = next++) {
        const int reference = order[size_t(rank)];
        // The index found this reference; its correspondences come from matching the query with
        // the reference alone (nearest of all its keypoints, ratio test), since with many
        // references the index's neighbours of a keypoint are mostly other meters' look-alike
        // glyphs: at 1,000 look-alike meters the right one kept a third of its inliers.
        std::vector<cv::Point2f> from, to;
        const pm_keypoints &own = *index->sources[size_t(reference)];
        for (const auto &[queryRow, referenceRow] :
             ratioMatches(query->descriptors, own.descriptors, maxDistance, kRatio)) {
          from.push_back(own.points[size_t(referenceRow)]);
          to.push_back(query->points[size_t(queryRow)]);
        }
        verified[rank] = reference;
        inliers[rank] = verifiedHomography(
          from, to, index->sizes[size_t(reference)], query->size, index->scales[size_t(reference)], query->scale,
          homographies + 9 * rank);
        if (inliers[rank] >= kBeyondChance) {
          enough = true;
        }
      }
    });
    // What one thread would have verified: the shortlist up to the first beyond chance. A worker
    // may have finished one more after it; that one is dropped, so answers do not depend on timing.
    bool beyond = false;
    for (int rank = 0; rank < shortlist; ++rank) {
      if (beyond || verified[rank] < 0) {
        verified[rank] = -1;
        inliers[rank] = 0;
        std::fill(homographies + 9 * rank, homographies + 9 * rank + 9, 0.0);
        beyond = true;
        continue;
      }
      beyond = inliers[rank] >= kBeyondChance;
    }
    return PM_OK;
  });
}

}  // extern "C"
