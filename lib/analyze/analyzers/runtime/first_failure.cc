// runtime.first_failure: of all the tracebacks and fatal errors of a run,
// the one that came first and was not caused by another.
#include <algorithm>
#include <climits>
#include <map>
#include <set>
#include <tuple>

#include "analyze/analyzers/runtime/cuda_text.h"
#include "analyze/analyzers/runtime/runtime_common.h"
#include "analyze/analyzers/runtime/runtime_rules.h"

namespace casefile::runtime {
namespace {

constexpr size_t kMaxErrorInSummary = 300;
constexpr size_t kMaxLaterRanks = 8;
// Two failures on different hosts this close in time may be in either
// order: host clocks differ by that much.
constexpr int64_t kClockSlackUs = 2'000'000;

bool IsCandidate(const FailureRow& r) {
  if (r.kind == RowKind::kLauncherFailure) return false;
  // The notice torch prints after every CUDA error: the error is elsewhere.
  if (r.kind == RowKind::kCudaError &&
      r.detail.starts_with("CUDA kernel errors might be asynchronously reported"))
    return false;
  return !IsConsequence(r) && !IsAbort(r);
}

std::string ErrorText(const FailureRow& r) {
  const std::string d = Shorten(r.detail, kMaxErrorInSummary);
  switch (r.kind) {
    case RowKind::kCudaError:
      return "CUDA error: " + d;
    case RowKind::kCollectiveError:
      return "NCCL error: " + d;
    default:
      return d.empty() ? "a traceback cut before its exception line" : d;
  }
}

}  // namespace

std::optional<Finding> BuildFirstFailure(const RuntimeFacts& facts, bool explained) {
  // Ranks torchrun names as its root cause break ties of time.
  std::set<int64_t> root_ranks;
  for (const FailureRow& r : facts.rows) {
    if (r.kind == RowKind::kLauncherFailure && r.rank && r.detail.starts_with("root cause"))
      root_ranks.insert(*r.rank);
  }
  std::vector<const FailureRow*> cands;
  size_t consequences = 0;
  for (const FailureRow& r : facts.rows) {
    if (r.kind == RowKind::kLauncherFailure) continue;
    if (!IsCandidate(r)) {
      ++consequences;
      continue;
    }
    if (IsRecovered(facts, r)) continue;
    // A crash and a cuda_error row on one line are one failure.
    if (!cands.empty() && cands.back()->file_id == r.file_id &&
        cands.back()->line_no == r.line_no) {
      if (r.kind == RowKind::kCrash) cands.back() = &r;
      continue;
    }
    cands.push_back(&r);
  }
  if (cands.empty()) return std::nullopt;
  auto key = [&](const FailureRow* r) {
    const int64_t t = r->Time() == kNoTimestamp ? INT64_MAX : r->Time();
    const bool root = r->rank && root_ranks.count(*r->rank);
    return std::make_tuple(t, !root, r->file_id, r->line_no);
  };
  std::stable_sort(cands.begin(), cands.end(),
                   [&](const FailureRow* a, const FailureRow* b) { return key(a) < key(b); });
  const FailureRow& first = *cands.front();
  const Culprit who = CulpritOf(facts, first.rank, first.host);

  // Other ranks that failed on their own after it.
  std::vector<int64_t> later_ranks;
  size_t later_unranked = 0;
  const FailureRow* close_rival = nullptr;
  for (size_t i = 1; i < cands.size(); ++i) {
    const FailureRow& r = *cands[i];
    if (r.rank && first.rank && *r.rank == *first.rank) continue;
    if (r.rank) {
      later_ranks.push_back(*r.rank);
    } else if (r.file_id != first.file_id) {
      ++later_unranked;
    }
    // Only the lines' own times: an estimate is already as coarse as the clocks.
    if (!close_rival && r.ts_us != kNoTimestamp && first.ts_us != kNoTimestamp &&
        r.ts_us - first.ts_us <= kClockSlackUs && !r.host.empty() && !first.host.empty() &&
        !SameHost(r.host, first.host)) {
      close_rival = &r;
    }
  }
  std::sort(later_ranks.begin(), later_ranks.end());
  later_ranks.erase(std::unique(later_ranks.begin(), later_ranks.end()), later_ranks.end());

  Finding f;
  f.code = "runtime.first_failure";
  f.analyzer = kAnalyzerName;
  f.severity = explained ? Severity::kInfo : Severity::kError;
  // Another analyzer's error (numeric.overflow, hang.*) may explain the run;
  // the runner then lowers this one to info.
  f.error_unless_explained = !explained;
  f.title = "The first failure of the run";
  std::string s = (who.rank || who.host ? WhoText(who) : std::string("A process")) +
                  " failed first: " + ErrorText(first);
  while (!s.empty() && (s.back() == '.' || s.back() == ' ')) s.pop_back();
  if (first.ts_us != kNoTimestamp) {
    s += ", at " + ClockText(first.ts_us);
  } else if (first.est_ts_us != kNoTimestamp) {
    s += ", at about " + ClockText(first.est_ts_us) + " (the time of a line next to it)";
  }
  s += ".";
  if (!later_ranks.empty()) {
    std::vector<int64_t> named(later_ranks.begin(),
                               later_ranks.begin() + std::min(later_ranks.size(), kMaxLaterRanks));
    s += " " + Count(later_ranks.size(), "other rank", "other ranks") + " failed after it (" +
         (later_ranks.size() == 1 ? "rank " : "ranks ") + RankRanges(named) +
         (later_ranks.size() > kMaxLaterRanks ? ", ..." : "") + ").";
  } else if (later_unranked > 0) {
    s += " " + Count(later_unranked, "other error", "other errors") +
         " of other processes came after it.";
  }
  if (first.Time() == kNoTimestamp && cands.size() > 1)
    s += " The errors carry no time: the order is the files'.";
  if (close_rival) {
    const Culprit rival = CulpritOf(facts, close_rival->rank, close_rival->host);
    s += " " + WhoText(rival) + " failed within " +
         std::to_string((close_rival->ts_us - first.ts_us) / 1000) +
         " ms on another host: the clocks of two hosts may differ by more than that.";
  }
  if (consequences > 0) {
    s += " " + Count(consequences, "error was a consequence", "errors were consequences") +
         " of a failure (watchdog timeouts, aborts, the launcher's terminations, extensions "
         "another rank failed to build) and " +
         (consequences == 1 ? "is" : "are") + " not counted.";
  }
  s += " A hang finding may name the same rank.";
  f.summary = std::move(s);
  Culprit c = who;
  if (c.rank || c.host) f.culprits.push_back(c);
  Citations cite(facts.line);
  cite.Add(first.file_id, first.line_no);
  size_t launcher = 0;
  for (const FailureRow& r : facts.rows) {
    if (launcher >= 2 || r.kind != RowKind::kLauncherFailure || !r.rank || !first.rank ||
        *r.rank != *first.rank)
      continue;
    cite.Add(r.file_id, r.line_no);
    ++launcher;
  }
  f.evidence = cite.Take();
  f.recommendation =
      "Start from this error: the tracebacks of the other ranks (collective timeouts, aborted "
      "communicators, the launcher's terminations) follow from it. Read the lines of this rank "
      "before it for the cause, fix it, and restart; when the error names no cause (a "
      "segmentation fault, a killed process), look at its host (dmesg, memory, GPU health).";
  return f;
}

}  // namespace casefile::runtime
