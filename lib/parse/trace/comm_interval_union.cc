#include "parse/trace/comm_interval_union.h"

#include <algorithm>

namespace casefile::trace_comm {
namespace {

double Density(const IntervalUnion::Piece& p) {
  const double extent = p.end - p.start;
  return extent > 0 ? p.covered / extent : 0;
}

// Sorted pieces -> disjoint pieces. Overlapping exact pieces give their
// exact union; where a joined piece is involved the overlap is estimated as
// overlap * density * density (covered time spread evenly and independently).
std::vector<IntervalUnion::Piece> Union(std::vector<IntervalUnion::Piece>& sorted) {
  std::vector<IntervalUnion::Piece> out;
  out.reserve(sorted.size());
  for (const IntervalUnion::Piece& p : sorted) {
    if (!out.empty() && p.start <= out.back().end) {
      IntervalUnion::Piece& cur = out.back();
      const double overlap = std::min(cur.end, p.end) - p.start;
      const double shared = overlap * Density(cur) * Density(p);
      cur.covered += p.covered - shared;
      cur.end = std::max(cur.end, p.end);
      cur.covered = std::clamp(cur.covered, 0.0, cur.end - cur.start);
    } else {
      out.push_back(p);
    }
  }
  return out;
}

}  // namespace

void IntervalUnion::Add(double start, double end) {
  if (!(end > start)) return;  // empty (or NaN) intervals cover nothing
  pending_.push_back({start, end, end - start});
  if (pending_.size() >= cap_) Compact();
}

void IntervalUnion::Compact() {
  if (pending_.empty()) return;
  std::vector<Piece> all;
  all.reserve(merged_.size() + pending_.size());
  all.insert(all.end(), merged_.begin(), merged_.end());
  all.insert(all.end(), pending_.begin(), pending_.end());
  pending_.clear();
  std::sort(all.begin(), all.end(),
            [](const Piece& a, const Piece& b) { return a.start < b.start; });
  merged_ = Union(all);
  while (merged_.size() > cap_ / 2) {
    // Too many disjoint pieces: join those separated by small gaps. Start
    // from the median gap so one round usually suffices, then double.
    if (gap_ == 0) {
      std::vector<double> gaps;
      gaps.reserve(merged_.size());
      for (size_t i = 1; i < merged_.size(); ++i) {
        gaps.push_back(merged_[i].start - merged_[i - 1].end);
      }
      std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
      gap_ = std::max(gaps[gaps.size() / 2], 1e-3);
    } else {
      gap_ *= 2;
    }
    std::vector<Piece> joined;
    joined.reserve(merged_.size());
    for (const Piece& p : merged_) {
      if (!joined.empty() && p.start - joined.back().end <= gap_) {
        joined.back().covered += p.covered;  // disjoint: the gap covers nothing
        joined.back().end = p.end;
      } else {
        joined.push_back(p);
      }
    }
    merged_ = std::move(joined);
  }
}

const std::vector<IntervalUnion::Piece>& IntervalUnion::Merged() {
  Compact();
  return merged_;
}

double IntervalUnion::CoveredIn(double t0, double t1) {
  const auto& m = Merged();
  auto it =
      std::lower_bound(m.begin(), m.end(), t0, [](const Piece& p, double t) { return p.end <= t; });
  double covered = 0;
  for (; it != m.end() && it->start < t1; ++it) {
    const double inside = std::min(it->end, t1) - std::max(it->start, t0);
    covered += inside >= it->end - it->start ? it->covered : inside * Density(*it);
  }
  return covered;
}

bool IntervalUnion::Overlaps(double t0, double t1) {
  const auto& m = Merged();
  auto it =
      std::lower_bound(m.begin(), m.end(), t0, [](const Piece& p, double t) { return p.end < t; });
  return it != m.end() && it->start <= t1;
}

}  // namespace casefile::trace_comm
