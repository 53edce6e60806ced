// The watchdog lines of a PyTorch job arranged by rank and process group:
// each rank's first timeout, each group's progress lines, and the SeqNum S
// most waiting ranks of a group report. The collective rules read this view.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analyze/analyzers/hang/dist_common.h"

namespace casefile::hang::collective {

// File order: (file_id, line_no).
bool Before(const DistEvent* a, const DistEvent* b);

// A process group's key: its id without the description ("1(default_pg)"
// -> "1"); a text with no id is its own key.
std::string GroupKey(const std::string& pg);

struct Group {
  std::string key;
  std::string label;                             // pg as printed ("" when no line named it)
  std::map<int64_t, const DistEvent*> timeouts;  // rank -> its first timeout in this group
  std::map<int64_t, const DistEvent*> progress;  // rank -> its first progress line
  std::optional<int64_t> seq;                    // S: the SeqNum most waiting ranks report
  const DistEvent* at_seq = nullptr;  // lowest rank's timeout at S (that names the op, if any)
  size_t ranks_at_seq = 0;
};

struct View {
  std::vector<const DistEvent*> timeouts;             // every watchdog_timeout, file order
  std::map<int64_t, const DistEvent*> first_timeout;  // rank -> its first, any group
  // Ranks with a timeout, progress or "Some NCCL operations" line, an NCCL
  // error of their collective, or a crash that says a peer went away.
  std::set<int64_t> spoke;
  std::map<std::string, Group> groups;
  const Group* primary = nullptr;  // the group with the most waiting ranks
  // Timeouts that name no global rank (torchrun's "[default3]:" gives the
  // local rank only, and "[PG ID 2 ... Rank 1]" the rank inside a group):
  // the first line of each waiter, told apart by (file, host, group, rank
  // in the group), in file order. Used only when no timeout names a rank.
  std::vector<const DistEvent*> rankless;
  // The first timeout's time; with no timeout at all, the first stuck
  // watchdog's (the moment the job was known to hang either way).
  int64_t first_timeout_ts = kNoTimestamp;
  // torch >= 2.3's heartbeat monitor: "ProcessGroupNCCL's watchdog got stuck
  // for N seconds" (or "Heartbeat monitor timed out"). The watchdog thread
  // itself blocked in a NCCL or CUDA call; the first line of each rank, and
  // the first of each process whose line names no rank, file order.
  std::map<int64_t, const DistEvent*> first_stuck;
  std::vector<const DistEvent*> stuck_rankless;
};

// True when the view's waiting ranks are stuck watchdogs: no timeout was
// logged, but a heartbeat monitor took processes down.
bool StuckOnly(const View& v);

// Events without a process group join the group another line of the same
// rank names for the same SeqNum, else the only group any line names, else
// the default group "0". Views point into `in`.
View BuildView(const DistInputs& in);

// "ALLREDUCE, 4194304 elements, timeout 600000 ms" ("" for nullptr).
std::string WorkDetails(const DistEvent* e);
// " in process group 0 (default_pg)"; "" when no line named the group.
std::string GroupSuffix(const Group& g);
// "31 ranks wait at SeqNum 1042 (ALLREDUCE, 4194304 elements, timeout 600000 ms)";
// for a stuck-only view "the ProcessGroupNCCL watchdog of 8 ranks got stuck
// in a NCCL or CUDA call (480 s without progress)"
std::string WaitClause(const View& v);
// The ranks (or, when no timeout names a rank, the waiters) that timed out;
// for a stuck-only view the ranks (or processes) whose watchdog got stuck.
size_t WaitingCount(const View& v);
// The first timeout line (stuck-only: stuck line) of up to kMaxWaitingCited
// waiting ranks, lowest first.
void CiteWaiting(const View& v, LineCitations& ev);

}  // namespace casefile::hang::collective
