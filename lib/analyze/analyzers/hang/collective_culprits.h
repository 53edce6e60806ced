// Who the ranks of a collective hang wait for, rule by rule (docs/FINDINGS.md,
// section hang, R1 and R2): a rank that failed first, ranks behind the
// others, the ranks the job should have, their own logs, and ranks that
// issued another collective at the same SeqNum.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analyze/analyzers/hang/collective_view.h"

namespace casefile::hang::collective {

// (a) A rank with a crash, CUDA or NCCL error or launcher report that is not
// a consequence of the hang, and no timeout of its own.
struct Failed {
  int64_t rank = 0;
  std::vector<const DistEvent*> errors;    // crash, CUDA and NCCL errors
  std::vector<const DistEvent*> launcher;  // launcher reports
  int64_t first_ts = kNoTimestamp;
  bool root_cause = false;
};
// First in time; without times, the launcher's root cause; then by rank.
// An error logged after the first timeout is left out. A launcher or error
// line that names only a local rank ([defaultN]:, --local_rank=N) counts for
// the global rank the rank->host map gives it (RankHostMap::GlobalOfLocal);
// error lines that name no rank at all join the one failed rank of their
// host.
std::vector<Failed> FailedFirst(const View& v, const DistContext& ctx);
// "torch.OutOfMemoryError: ... (torchrun reports exit code 1)"
std::string FailureText(const Failed& f);

// (b) A rank behind the others of its group.
struct Behind {
  int64_t rank = 0;
  std::string what;  // "last enqueued SeqNum 1041"
  const DistEvent* line = nullptr;
  const Group* group = nullptr;
};
std::vector<Behind> RanksBehind(const View& v);

// (c) The ranks the job should have: 0..N-1 for the largest communicator,
// else for the largest flight-recorder group, else 0..the highest rank
// anything names (the ranks named, when that would add as many as it has).
std::vector<int64_t> ExpectedRanks(const DistContext& ctx);

// The log a rank wrote: a file attributed to the rank, else a log of its host.
struct OwnLog {
  const FileInfo* file = nullptr;
  bool of_host = false;  // a log of the rank's host, which other ranks may share
};
class OwnLogs {
 public:
  explicit OwnLogs(const DistContext& ctx);
  OwnLog Of(int64_t rank) const;

 private:
  const DistContext& ctx_;
  std::unordered_map<int64_t, const FileInfo*> by_rank_;  // first file (lowest id) per rank
  std::unordered_map<std::string, const FileInfo*> by_host_;
};

// R2 from the logs: ranks of one group timed out at the same SeqNum with a
// different op or element count.
struct Side {
  std::string text;  // "ALLREDUCE (4194304 elements)"
  std::vector<int64_t> ranks;
  std::vector<const DistEvent*> lines;
};
struct LogMismatch {
  const Group* group = nullptr;  // null: the fingerprint check, which names none
  int64_t seq = 0;
  bool has_seq = true;
  std::vector<Side> sides;  // most ranks first
  std::vector<int64_t> culprits;
  // The host of each rank that spoke (the fingerprint check, whose ranks are
  // the message's and not the lines'); empty for the timeouts' form.
  std::map<int64_t, std::string> hosts;
};
std::optional<LogMismatch> FindLogMismatch(const View& v);
// R2 from TORCH_DISTRIBUTED_DEBUG=DETAIL's fingerprint check, read from the
// crash rows' exception text: each message gives the fingerprint of the rank
// speaking and of one other rank; every rank's fingerprint at the lowest
// SequenceNumber the messages name (its own words first) makes the sides.
// `group` is null (the check names no group).
std::optional<LogMismatch> FindFingerprintMismatch(const DistInputs& in);

}  // namespace casefile::hang::collective
