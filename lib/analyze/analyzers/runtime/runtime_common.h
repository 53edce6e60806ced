// Helpers shared by the runtime rules: which failure rows are consequences
// of another failure, which were handled (training went on), how a rule
// names a rank and cites a line, and the few text formats the summaries use.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analyze/analyzers/runtime/runtime_inputs.h"
#include "analyze/finding.h"
#include "analyze/host_names.h"
#include "analyze/summary_text.h"

namespace casefile::runtime {

inline constexpr const char* kAnalyzerName = "runtime";

// A row that follows another failure rather than causing one: its detail
// names a consequence (failure_markers.h: the watchdog's timeouts, an
// aborted communicator, the launcher's SIGTERM, NCCL's "remote process
// exited", a re-reported child failure...), or a launcher exit code -15. A
// detail that carries a CUDA fault (cuda_text.h) is never a consequence:
// the watchdog also wraps illegal memory accesses.
bool IsConsequence(const FailureRow& row);

// An abort (SIGABRT, "Aborted (core dumped)", "Fatal Python error:
// Aborted"): what a process does after an error it reported elsewhere (a
// what() line, a coordination-service fatal error), never the first cause.
bool IsAbort(const FailureRow& row);

// A crash the process survived: at least kRecoveredSteps later step_time
// rows of distinct steps in the same file (any rank: a rank that died
// stops the collectives of the others within a step). At most
// kMaxRecoveryScan later rows are looked at.
inline constexpr size_t kRecoveredSteps = 3;
inline constexpr size_t kMaxRecoveryScan = 8192;
bool IsRecovered(const RuntimeFacts& facts, const FailureRow& row);

// A kernel event without a wall-clock time (plain dmesg: seconds since
// boot) that names no process of the run, on a host whose launcher reported
// its workers finished: an event of another job or an earlier boot.
bool IsForeignUntimedKernelEvent(const RuntimeFacts& facts, int64_t ts_us, const std::string& host);

// SameHost: analyze/host_names.h.

// {rank, host}: the host from the rank->host map, else `host`.
Culprit CulpritOf(const RuntimeFacts& facts, std::optional<int64_t> rank, const std::string& host);
// Adds `c` unless a culprit names the same rank (or, without ranks, the
// same host); the one kept takes the fields it lacked.
void AddCulprit(std::vector<Culprit>& culprits, const Culprit& c);
// "rank 5 (host node-1)", "rank 5", "host node-1", "a process".
std::string WhoText(const Culprit& c);

// Evidence of one finding, each line once, in the order cited.
class Citations {
 public:
  explicit Citations(const LineFn& fn) : fn_(fn) {}
  // The Evidence (for its text), or nullptr for line_no <= 0 / a repeat;
  // valid until the next Add.
  const Evidence* Add(int64_t file_id, int64_t line_no);
  size_t size() const { return items_.size(); }
  std::vector<Evidence> Take() { return std::move(items_); }

 private:
  const LineFn& fn_;
  std::set<std::pair<int64_t, int64_t>> seen_;
  std::vector<Evidence> items_;
};

// The integer after `key` in `s` ("pid 1322" with key "pid "), or nullopt.
std::optional<int64_t> IntAfter(std::string_view s, std::string_view key);
// "torchrun reports exitcode -9 (SIGKILL)": a launcher row in words.
std::string LauncherText(const FailureRow& row);
// The exception type of "torch.cuda.OutOfMemoryError: CUDA out of ...",
// "" when the text does not start with one.
std::string_view ExceptionType(std::string_view detail);

std::string Shorten(std::string_view s, size_t max);

}  // namespace casefile::runtime
