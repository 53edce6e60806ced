// The median of the last N values of a series, kept sorted as values come
// and go. The loss-spike test asks for the median of the previous 20 losses
// at every point; copying the window into a vector and selecting in it (an
// allocation and an nth_element per point) was most of the numeric
// analyzer's time on a run whose every rank logs its loss at every step.
// Values must not be NaN (the curve stops at its first non-finite value).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>

namespace casefile::numeric {

template <size_t N>
class RollingMedian {
  static_assert(N > 0);

 public:
  // Adds `v`; when N values are held, the oldest leaves.
  void Push(double v) {
    if (count_ == N) {
      Remove(ring_[head_]);
      ring_[head_] = v;
      head_ = (head_ + 1) % N;
    } else {
      ring_[(head_ + count_) % N] = v;
      ++count_;
    }
    double* end = sorted_.data() + count_ - 1;  // the new slot is past the held values
    double* at = std::upper_bound(sorted_.data(), end, v);
    std::copy_backward(at, end, end + 1);
    *at = v;
  }

  size_t size() const { return count_; }

  // The median of the held values (the mean of the middle two for an even
  // count); size() must be above 0.
  double Median() const {
    const size_t mid = count_ / 2;
    if (count_ % 2) return sorted_[mid];
    return (sorted_[mid - 1] + sorted_[mid]) / 2;
  }

 private:
  // Removes the held value `v` that arrived first. Push puts a value after
  // those equal to it, so equal values lie in arrival order and the oldest,
  // the one leaving, is the first of them: bit for bit the same value even
  // where zeros of both signs are held.
  void Remove(double v) {
    double* end = sorted_.data() + count_;
    double* at = std::lower_bound(sorted_.data(), end, v);
    std::copy(at + 1, end, at);
    // The count is unchanged: Push refills the freed slot at once.
  }

  std::array<double, N> ring_{};    // in arrival order, from head_
  std::array<double, N> sorted_{};  // the same values, ascending
  size_t head_ = 0;
  size_t count_ = 0;
};

}  // namespace casefile::numeric
