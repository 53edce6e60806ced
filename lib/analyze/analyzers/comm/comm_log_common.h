// Helpers the comm log rules share: finding shells, culprits, host and rank
// lists, which process is which global rank, and the texts of NCCL's
// messages the summaries quote (result classes, system errors, peers).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "analyze/analyzers/comm/comm_log_inputs.h"
#include "analyze/finding.h"
#include "analyze/host_names.h"
#include "analyze/summary_text.h"

namespace casefile::comm {

// Culprits named per finding (hosts, ranks).
inline constexpr size_t kMaxCulprits = 16;
// The rendezvous form of a store_timeout row that says how many processes
// joined ("Timed out after 901 seconds waiting for clients. 3/4 clients
// joined.", the store based barrier's "7/8 joined"): the store's server waited
// at set-up for processes that never came.
inline constexpr const char* kRdzvNotAllJoined = "not_all_joined";
// Evidence lines of other hosts or ranks cited beside the main ones.
inline constexpr size_t kMaxCited = 8;
// Hosts or ranks named in a summary before "and N more".
inline constexpr size_t kMaxNamed = 6;

Finding NewFinding(std::string_view code, Severity severity, std::string title);

// Adds {host, rank} unless a culprit already names the same pair; a
// host-only culprit is dropped when a culprit of the same host has a rank.
// Stops at kMaxCulprits.
void AddCulprit(Finding& f, const std::string& host, std::optional<int64_t> rank = std::nullopt);

// "node-1, node-2 and 3 more" ("an unknown host" for "").
std::string HostList(const std::vector<std::string>& hosts, size_t max_named = kMaxNamed);

// SameHost: analyze/host_names.h.

// The identity of a process in a log: file, host, pid.
using ProcKey = std::tuple<int64_t, std::string, int64_t>;
inline ProcKey KeyOf(const NcclProc& p) { return {p.file_id, p.host, p.pid}; }

// Global ranks of processes, read from the communicator that spans the
// job (the largest nranks among non-split communicators): its rank is the
// global rank.
class GlobalRanks {
 public:
  explicit GlobalRanks(const std::vector<NcclProc>& procs);
  std::optional<int64_t> Of(const ProcKey& key) const;
  int64_t world() const { return world_; }

 private:
  std::map<ProcKey, int64_t> rank_;
  int64_t world_ = 0;
};

// The host of a global rank from the rank->host map, else `fallback`.
std::string HostOfRank(const CommLogFacts& facts, std::optional<int64_t> rank,
                       const std::string& fallback);

// "rank 5 (node-1)", "rank 5", "node-1", "a process".
std::string WhoText(const std::string& host, std::optional<int64_t> rank);

// Cuts `s` to `max` bytes at a word boundary, with "..." when cut.
std::string Shorten(std::string_view s, size_t max);

// A failure of a process that is not a communication report and not a
// consequence of another failure: a crash, a CUDA error, a process killed
// by a signal other than the launcher's SIGTERM or an abort. Reports that
// only say a peer went away are consequences when one of these came first.
bool IsIndependentFailure(const CommEvent& e);
bool SameProcess(const CommEvent& a, const CommEvent& b);

}  // namespace casefile::comm
