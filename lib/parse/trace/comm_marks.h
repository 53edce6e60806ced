// Evidence candidates of the comm aggregator: a pool per mark kind that
// keeps the best-scoring events (bounded), and the text of an event as
// trace_marks stores it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "index/index_types.h"
#include "parse/trace/comm_time_bins.h"
#include "parse/trace/comm_trace_limits.h"

namespace casefile::trace_comm {

// The event object as written, cut to kTraceMarkTextBytes at a UTF-8
// boundary. A B/E pair has no single object (the reader drops B's text by
// the time E closes it), so its text is composed:
// {"name":...,"ph":"X","ts":...,"dur":...,"pid":...,"tid":...,"composed_from":"B/E"}.
std::string MarkText(const TraceEventRow& row);

// The row of a mark for `row` (text, line, offset, ts, dur, pid).
TraceMarkRow MarkOf(const TraceEventRow& row, const char* kind, std::string detail = {});

struct MarkCandidate {
  double score = 0;  // higher is kept
  double when = 0;   // the time the steady-state filter looks at
  TraceMarkRow row;
};

// Keeps the `cap` highest scores (ties: the earlier offset).
class MarkPool {
 public:
  explicit MarkPool(size_t cap) : cap_(cap) {}
  // Whether a candidate with this score would enter (call before building
  // its text).
  bool WouldKeep(double score, int64_t offset) const;
  void Add(MarkCandidate c);
  // The kept candidates, sorted by time then offset; the pool is emptied.
  std::vector<MarkCandidate> Take();
  const std::vector<MarkCandidate>& kept() const { return heap_; }

 private:
  size_t cap_;
  std::vector<MarkCandidate> heap_;  // min-heap on (score, -offset)
};

// The best-scoring candidates whose `when` is at or after a time known only
// at the end (the steady start), whatever order they arrive in. One pool
// holding the best few overall fails when the best are all early (the
// longest recv-done waits are in the first steps): none is left after the
// filter. So each of kMarkSegments time cells (TimeBins: their width
// doubles as the span grows, merged cells keep the best of both) keeps its
// own kMarksPerKind best, and Take picks among the candidates at or after
// `from`. That is exact, except that in the one cell holding `from`,
// kMarksPerKind better candidates before `from` can crowd out later ones of
// that cell (a cell spans under 1/(kMarkSegments/2) of the trace).
// Memory: at most kMarkSegments * kMarksPerKind = 1024 candidates, each
// text cut to kTraceMarkTextBytes (under 1 MiB).
class SegmentedMarkPool {
 public:
  // The pool of the segment holding `when` (WouldKeep, then Add).
  MarkPool& At(double when) { return bins_.At(when).pool; }
  // The `n` best at or after `from`, sorted by time then offset; emptied.
  std::vector<MarkCandidate> Take(double from, size_t n);

 private:
  struct Cell {
    MarkPool pool{kMarksPerKind};
    void Merge(const Cell& o) {
      for (const MarkCandidate& c : o.pool.kept()) pool.Add(c);
    }
  };
  TimeBins<Cell> bins_{kMarkSegments};
};

}  // namespace casefile::trace_comm
