// The union of many time intervals in bounded memory: busy time (transfers,
// recv-done waits, NCCL kernels) measured as covered time, not summed, so
// overlapping work on several threads or devices counts once.
//
// Intervals are appended unsorted and merged into pieces every `cap`
// additions. A piece has an extent and the time it covers; while the union
// holds at most cap/2 disjoint pieces every piece is exact (covered = its
// extent) and the union is exact. Past that, neighbouring pieces separated
// by the smallest gaps are joined into one piece that keeps the sum of
// their covered time (the gap adds nothing), so the total stays exact; only
// where a later interval overlaps a joined piece is the overlap estimated
// (as if the piece's covered time were spread evenly over its extent), and
// CoveredIn of a window cutting a joined piece takes its even share.
// gap_joined_us() says how large a gap may have been joined. Memory: at most
// 1.5 * cap pieces.
#pragma once

#include <cstddef>
#include <vector>

namespace casefile::trace_comm {

class IntervalUnion {
 public:
  struct Piece {
    double start = 0;
    double end = 0;
    double covered = 0;  // <= end - start; equal for an exact piece
  };

  explicit IntervalUnion(size_t cap) : cap_(cap < 4 ? 4 : cap) {}

  void Add(double start, double end);
  // Covered time inside [t0, t1).
  double CoveredIn(double t0, double t1);
  // Whether a piece's extent overlaps [t0, t1] (touching counts); exact
  // while no gap was joined.
  bool Overlaps(double t0, double t1);
  // The pieces, sorted and disjoint.
  const std::vector<Piece>& Merged();
  bool empty() const { return merged_.empty() && pending_.empty(); }
  double gap_joined_us() const { return gap_; }

 private:
  void Compact();

  size_t cap_;
  double gap_ = 0;  // gaps up to this were joined
  std::vector<Piece> merged_;
  std::vector<Piece> pending_;
};

}  // namespace casefile::trace_comm
