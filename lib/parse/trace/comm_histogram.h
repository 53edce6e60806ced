// Fixed-size streaming histograms for the comm aggregator: percentiles of
// latencies and slacks without keeping the values, and the power-of-4
// transfer-size buckets of net_sizes.
#pragma once

#include <array>
#include <cstdint>
#include <limits>

namespace casefile::trace_comm {

// Log-linear buckets: each power of two is cut into kSubBuckets equal parts,
// so a quantile read as its bucket's middle is within 1/(2*kSubBuckets)
// (6.25%) of a value of that bucket; the exact min and max are kept and clamp
// the answer. Covers 2^kMinExp..2^kMaxExp (about 1 ps to 200 days in µs);
// values outside land in the end buckets. 4 KiB per histogram.
class LogHistogram {
 public:
  static constexpr int kSubBuckets = 8;
  static constexpr int kMinExp = -20;
  static constexpr int kMaxExp = 44;
  static constexpr int kBuckets = (kMaxExp - kMinExp) * kSubBuckets + 1;

  void Add(double v);
  void Merge(const LogHistogram& other);

  uint64_t count() const { return count_; }
  double sum() const { return sum_; }
  double min() const { return count_ ? min_ : 0; }
  double max() const { return count_ ? max_ : 0; }
  double mean() const { return count_ ? sum_ / static_cast<double>(count_) : 0; }
  // Nearest-rank quantile (q in 0..1), 0 when empty.
  double Quantile(double q) const;
  // Values at or above `v` (approximate inside v's bucket: the whole bucket
  // counts when its middle is at or above v).
  uint64_t CountAtLeast(double v) const;

 private:
  static int BucketOf(double v);
  static double MiddleOf(int bucket);

  std::array<uint64_t, kBuckets> buckets_{};
  uint64_t count_ = 0;
  double sum_ = 0;
  double min_ = std::numeric_limits<double>::infinity();
  double max_ = -std::numeric_limits<double>::infinity();
};

// net_sizes buckets: [0,1), [1,4), [4,16), ... [4^k, 4^(k+1)): powers of 4
// show "many small transfers" against "few large" at a glance (the
// network-analysis notebook of the seed), and 33 buckets cover up to 2^64.
struct SizeBuckets {
  static constexpr int kBuckets = 33;
  static int BucketOf(double bytes);
  static double LowOf(int bucket);   // inclusive
  static double HighOf(int bucket);  // exclusive
  std::array<int64_t, kBuckets> transfers{};
  std::array<double, kBuckets> bytes{};
  void Add(double b) {
    const int i = BucketOf(b);
    ++transfers[i];
    bytes[i] += b;
  }
};

}  // namespace casefile::trace_comm
