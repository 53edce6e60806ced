// A fixed number of equal time cells whose width doubles as the covered
// range grows, so per-time counters fit in bounded memory whatever the span
// and in whatever order events arrive (trace events are sorted per thread,
// not across threads). When a time falls outside the range, the cells slide over unused cells when
// that makes room (the first time seen need not be the earliest), else neighbouring cells merge
// pairwise and the width doubles until it fits; a time before the range then makes the old range
// the right half of the new one. Cell must have `void Merge(const Cell&)` and be
// default-constructible as empty.
// The cells are allocated at the first At() (a trace without the events a
// bin counts costs nothing: the steady-state cells are 8 MiB), and growing
// touches only the used cells, so a time far off (1e300 us) costs a few
// operations per doubling, not a pass over every cell.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

namespace casefile::trace_comm {

template <typename Cell>
class TimeBins {
 public:
  // `cells` must be even; `initial_width_us` is the width before any growth.
  explicit TimeBins(size_t cells, double initial_width_us = 1.0)
      : count_(cells), width_(initial_width_us) {}

  Cell& At(double ts_us) {
    if (!started_) {
      started_ = true;
      lo_ = ts_us;
      cells_.resize(count_);
    }
    while (ts_us >= lo_ + width_ * static_cast<double>(cells_.size())) {
      // Slide left over unused cells when that makes room, else merge.
      const size_t need = CellsBeyond(ts_us - (lo_ + width_ * static_cast<double>(cells_.size())));
      if (need <= first_used_) {
        Shift(-static_cast<std::ptrdiff_t>(need));
      } else {
        GrowRight();
      }
    }
    while (ts_us < lo_) {
      const double cells = std::ceil((lo_ - ts_us) / width_);
      const size_t need = cells >= static_cast<double>(cells_.size())
                              ? cells_.size()
                              : std::max<size_t>(1, static_cast<size_t>(cells));
      if (need <= cells_.size() - 1 - last_used_) {
        Shift(static_cast<std::ptrdiff_t>(need));
      } else {
        GrowLeft();
      }
    }
    size_t i = static_cast<size_t>((ts_us - lo_) / width_);
    if (i >= cells_.size()) i = cells_.size() - 1;  // rounding at the top edge
    if (!used_ || i < first_used_) first_used_ = i;
    if (!used_ || i > last_used_) last_used_ = i;
    used_ = true;
    return cells_[i];
  }

  bool started() const { return started_; }
  size_t size() const { return count_; }
  double lo() const { return lo_; }
  double width() const { return width_; }
  double StartOf(size_t i) const { return lo_ + width_ * static_cast<double>(i); }
  const Cell& cell(size_t i) const { return cells_[i]; }

 private:
  // Cells needed to move a range edge `distance_us` further (at least one).
  size_t CellsBeyond(double distance_us) const {
    const double cells = std::floor(distance_us / width_) + 1;
    return cells >= static_cast<double>(cells_.size()) ? cells_.size() : static_cast<size_t>(cells);
  }
  // Moves the contents by `by` cells (positive: towards higher indexes, the
  // range start moving earlier) over cells known to be unused.
  void Shift(std::ptrdiff_t by) {
    if (by > 0) {
      std::move_backward(cells_.begin() + static_cast<std::ptrdiff_t>(first_used_),
                         cells_.begin() + static_cast<std::ptrdiff_t>(last_used_) + 1,
                         cells_.begin() + static_cast<std::ptrdiff_t>(last_used_) + 1 + by);
      for (size_t j = first_used_; j < first_used_ + static_cast<size_t>(by); ++j)
        cells_[j] = Cell();
    } else {
      const size_t left = static_cast<size_t>(-by);
      std::move(cells_.begin() + static_cast<std::ptrdiff_t>(first_used_),
                cells_.begin() + static_cast<std::ptrdiff_t>(last_used_) + 1,
                cells_.begin() + static_cast<std::ptrdiff_t>(first_used_ - left));
      for (size_t j = last_used_ + 1 - left; j <= last_used_; ++j) cells_[j] = Cell();
    }
    first_used_ = static_cast<size_t>(static_cast<std::ptrdiff_t>(first_used_) + by);
    last_used_ = static_cast<size_t>(static_cast<std::ptrdiff_t>(last_used_) + by);
    lo_ -= width_ * static_cast<double>(by);
  }

  // Only [first_used_, last_used_] hold data (At() grows only after a cell
  // was used): merge those pairs, then empty the used cells no merge wrote.
  void GrowRight() {
    const size_t lo = first_used_ / 2;
    const size_t hi = last_used_ / 2;
    for (size_t j = lo; j <= hi; ++j) {
      Cell merged = std::move(cells_[2 * j]);
      merged.Merge(cells_[2 * j + 1]);
      cells_[j] = std::move(merged);
    }
    for (size_t j = std::max(hi + 1, first_used_); j <= last_used_; ++j) cells_[j] = Cell();
    width_ *= 2;
    first_used_ = lo;
    last_used_ = hi;
  }
  void GrowLeft() {
    const size_t n = cells_.size();
    const size_t lo = n / 2 + first_used_ / 2;
    const size_t hi = n / 2 + last_used_ / 2;
    for (size_t j = last_used_ / 2 + 1; j-- > first_used_ / 2;) {
      Cell merged = std::move(cells_[2 * j]);
      merged.Merge(cells_[2 * j + 1]);
      cells_[n / 2 + j] = std::move(merged);
    }
    for (size_t j = first_used_; j <= std::min(last_used_, lo - 1); ++j) cells_[j] = Cell();
    lo_ -= width_ * static_cast<double>(n);
    width_ *= 2;
    first_used_ = lo;
    last_used_ = hi;
  }

  size_t count_;             // cells, allocated at the first At()
  std::vector<Cell> cells_;  // empty until then
  double lo_ = 0;
  double width_;
  bool started_ = false;
  bool used_ = false;      // whether any cell was returned yet
  size_t first_used_ = 0;  // cells outside [first_used_, last_used_] are empty
  size_t last_used_ = 0;
};

}  // namespace casefile::trace_comm
