// Helpers shared by the cross-rank hang rules: how a rule cites a line, how
// culprits merge, and the few number and list formats the summaries use.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analyze/analyzers/hang/dist_inputs.h"
#include "analyze/finding.h"
#include "analyze/rank_map.h"
#include "analyze/summary_text.h"

namespace casefile::hang {

// Turns a line of a file into Evidence; the analyzer reads the line's text
// from the index, tests make it up.
using LineEvidenceFn = std::function<Evidence(int64_t file_id, int64_t line_no)>;

// What every cross-rank rule reads.
struct DistContext {
  const DistInputs& in;
  const RankHostMap& ranks;
  LineEvidenceFn evidence;
};

// Evidence of one finding, each line once, in the order cited.
class LineCitations {
 public:
  explicit LineCitations(const LineEvidenceFn& fn) : fn_(fn) {}
  void Add(int64_t file_id, int64_t line_no);
  size_t size() const { return items_.size(); }
  std::vector<Evidence> Take() { return std::move(items_); }

 private:
  const LineEvidenceFn& fn_;
  std::set<std::pair<int64_t, int64_t>> seen_;
  std::vector<Evidence> items_;
};

// Adds `c` unless a culprit already names the same rank, or (without ranks
// on both sides) the same host or the same task; the one kept takes the
// fields it lacked from `c`.
void AddCulprit(std::vector<Culprit>& culprits, const Culprit& c);

// {rank, host}: the host from the rank->host map, else `fallback` (the host
// of the event that named the rank), else none.
Culprit RankCulprit(const RankHostMap& ranks, int64_t rank, const std::string& fallback);

// "rank 5 (host node-1)", "rank 5" when the host is unknown.
std::string RankName(const Culprit& c);

// "rank 3" / "ranks 0-7, 9".
std::string RanksText(const std::vector<int64_t>& ranks);
// "1.91" (two decimals).
std::string Fixed2(double v);
// "0.2 s", "45 s", "10 min 12 s", "2 h 5 min" from microseconds (absolute
// value; tenths below a second).
std::string DurationText(int64_t us);
std::string Shorten(std::string_view s, size_t max);

// The most frequent value; ties go to the smallest (or, with
// prefer_high, the largest).
template <class T>
T ModeOf(const std::map<T, size_t>& counts, bool prefer_high = false) {
  T best{};
  size_t n = 0;
  for (const auto& [v, c] : counts) {
    if (c > n || (c == n && prefer_high)) {
      best = v;
      n = c;
    }
  }
  return best;
}

// The trailing number of a task name ("worker_3", "slice_0/task_12", "7").
std::optional<int64_t> TaskNumber(std::string_view task);

}  // namespace casefile::hang
