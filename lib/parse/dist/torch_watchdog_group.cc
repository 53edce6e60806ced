// The watchdog's own messages about a process group: a collective that timed
// out, the group's progress, the "taking the process down" notice and a
// stuck watchdog. Formats: docs/reference formats.md section 3.2.
#include <algorithm>

#include "parse/dist/dist_kinds.h"
#include "parse/dist/torch_watchdog_fields.h"
#include "parse/dist/torch_watchdog_kinds.h"

namespace casefile::dist::torch {
namespace {

constexpr size_t npos = std::string_view::npos;
// "dump signal from rank 7": the source is a few words.
constexpr size_t kMaxDumpSource = 48;

// True when the text before "Watchdog caught" shows that the timeout is
// quoted by another message rather than logged by the watchdog itself:
// "Process group watchdog thread terminated with exception: ...", "what():
// ...", "RuntimeError: ..." / "DistBackendError: ..." raised in the main
// thread, "NCCL communicator was aborted ... Original reason for failure
// was: ...". A tqdm bar or a glog header left in front is none of these.
bool IsWrapped(std::string_view before) {
  for (std::string_view w : {"exception", "what()", "Error", "abort", "reason"}) {
    if (before.find(w) != npos) return true;
  }
  return false;
}

}  // namespace

bool ReadWatchdogTimeout(std::string_view msg, DistEventRow& row) {
  const size_t at = msg.find("Watchdog caught");
  if (at == npos) return false;
  const std::string_view before = msg.substr(0, at);
  ApplyGroupRank(before, row);
  const std::string_view rest = msg.substr(at);
  const size_t fields_end = ReadWorkNccl(rest, row);
  const size_t ran = rest.find(" ran for ", fields_end == npos ? 0 : fields_end);
  if (ran != npos) {
    size_t i = ran + 9;
    // A duration cut at the end of the line may itself be cut.
    if (auto v = IntAt(rest, i); v && i < rest.size()) row.elapsed_ms = *v;
  }
  if (IsWrapped(before)) row.detail = kWrappedDetail;
  return true;
}

bool ReadWorkProgress(std::string_view msg, DistEventRow& row) {
  const size_t enq = msg.find("enqueued");
  if (enq == npos) return false;
  const auto enqueued = WorkNumberAt(msg, enq + 8);
  std::optional<int64_t> completed;
  if (const size_t c = msg.find("completed", enq); c != npos) completed = WorkNumberAt(msg, c + 9);
  // The work the watchdog stopped at, named before the group's status.
  std::optional<int64_t> work;
  size_t start = enq;
  for (std::string_view key : {"at work sequence id:", "at NCCL work:", "at work:"}) {
    const size_t at = msg.find(key);
    if (at == npos || at > enq) continue;
    size_t i = at + key.size();
    work = IntAt(msg, i);
    start = std::min(start, at);
    break;
  }
  if (!enqueued && !completed && !work) return false;
  ApplyGroupRank(msg.substr(0, start), row);
  if (work) row.seq = *work;
  if (enqueued) row.last_enqueued = *enqueued;
  if (completed) row.last_completed = *completed;
  if (msg.find("update periodically") != npos) {
    row.detail = kPeriodicDetail;
  } else if (const size_t ds = msg.find("dump signal"); ds != npos && ds < enq) {
    // "... due to a collective timeout from  rank 7 and we will ..." or
    // "... from this local rank and we will ...": who saw the timeout.
    std::string detail = "dump signal";
    const size_t from = msg.find("timeout from ", ds);
    if (from != npos && from < enq) {
      std::string_view src = msg.substr(from + 13, enq - (from + 13));
      src = src.substr(0, src.find(" and we"));
      src = Clip(src, kMaxDumpSource);
      if (!src.empty()) detail.append(" from ").append(src);
    }
    row.detail = std::move(detail);
  }
  return true;
}

bool ReadNcclFailed(std::string_view msg, DistEventRow& row) {
  const size_t at = msg.find("Some NCCL operations have failed");
  if (at == npos) return false;
  ApplyGroupRank(msg.substr(0, at), row);
  return true;
}

bool ReadWatchdogStuck(std::string_view msg, DistEventRow& row) {
  if (const size_t at = msg.find("atchdog got stuck for "); at != npos) {
    ApplyGroupRank(msg.substr(0, at), row);
    size_t i = at + 22;
    if (auto v = IntAt(msg, i); v && msg.substr(i, 7) == " second") row.elapsed_ms = *v * 1000;
    row.detail = "stuck";
    return true;
  }
  if (const size_t at = msg.find("Heartbeat monitor timed out"); at != npos) {
    ApplyGroupRank(msg.substr(0, at), row);
    row.detail = "heartbeat";
    return true;
  }
  if (const size_t at = msg.find("detected no heartbeat of its watchdog"); at != npos) {
    ApplyGroupRank(msg.substr(0, at), row);
    row.detail = "no_heartbeat";
    return true;
  }
  return false;
}

}  // namespace casefile::dist::torch
