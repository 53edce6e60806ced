#include "parse/trace/comm_histogram.h"

#include <algorithm>
#include <cmath>

namespace casefile::trace_comm {

int LogHistogram::BucketOf(double v) {
  if (!(v > 0)) return 0;  // zero, negative and NaN: the first bucket
  if (std::isinf(v)) return kBuckets - 1;
  int exp = 0;
  const double mantissa = std::frexp(v, &exp);  // v = mantissa * 2^exp, mantissa in [0.5, 1)
  const int e = exp - 1;                        // v in [2^e, 2^(e+1))
  if (e < kMinExp) return 0;
  if (e >= kMaxExp) return kBuckets - 1;
  const int sub = std::min(kSubBuckets - 1, static_cast<int>((mantissa * 2 - 1) * kSubBuckets));
  return 1 + (e - kMinExp) * kSubBuckets + sub;
}

double LogHistogram::MiddleOf(int bucket) {
  if (bucket <= 0) return 0;
  const int e = (bucket - 1) / kSubBuckets + kMinExp;
  const int sub = (bucket - 1) % kSubBuckets;
  return std::ldexp(1.0 + (sub + 0.5) / kSubBuckets, e);
}

void LogHistogram::Add(double v) {
  if (!std::isfinite(v)) return;  // callers reject them; a sum must never turn NaN
  ++buckets_[BucketOf(v)];
  ++count_;
  sum_ += v;
  min_ = std::min(min_, v);
  max_ = std::max(max_, v);
}

void LogHistogram::Merge(const LogHistogram& o) {
  if (o.count_ == 0) return;
  for (int i = 0; i < kBuckets; ++i) buckets_[i] += o.buckets_[i];
  count_ += o.count_;
  sum_ += o.sum_;
  min_ = std::min(min_, o.min_);
  max_ = std::max(max_, o.max_);
}

double LogHistogram::Quantile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  const uint64_t rank =
      std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_))));
  // The ends are known exactly.
  if (rank >= count_) return max_;
  if (rank == 1) return min_;
  uint64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += buckets_[i];
    if (seen >= rank) return std::clamp(i == 0 ? min_ : MiddleOf(i), min_, max_);
  }
  return max_;
}

uint64_t LogHistogram::CountAtLeast(double v) const {
  uint64_t n = 0;
  for (int i = kBuckets - 1; i > 0 && MiddleOf(i) >= v; --i) n += buckets_[i];
  return n;
}

int SizeBuckets::BucketOf(double b) {
  if (!(b >= 1)) return 0;
  int exp = 0;
  std::frexp(b, &exp);  // b in [2^(exp-1), 2^exp)
  return std::min(kBuckets - 1, 1 + (exp - 1) / 2);
}

double SizeBuckets::LowOf(int bucket) {
  return bucket <= 0 ? 0 : std::ldexp(1.0, 2 * (bucket - 1));
}
double SizeBuckets::HighOf(int bucket) { return std::ldexp(1.0, 2 * bucket); }

}  // namespace casefile::trace_comm
