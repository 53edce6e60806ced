// comm.gpu_test_failed (docs/FINDINGS.md): the distributed GPU test
// (torch-distributed-gpu-test.py) in which some rank printed "is broken"
// or never printed its "is OK (global rank: R/W)" line.
#include <algorithm>
#include <map>
#include <set>

#include "analyze/analyzers/comm/comm_log_common.h"
#include "analyze/analyzers/comm/comm_log_findings.h"

namespace casefile::comm {

std::optional<Finding> BuildGpuTestFailed(const CommLogFacts& facts) {
  std::vector<const CommEvent*> ok, broken;
  for (const CommEvent& e : facts.events) {
    if (e.kind != EventKind::kGpuTest) continue;
    if (e.op == "ok") ok.push_back(&e);
    if (e.op == "broken") broken.push_back(&e);
  }
  if (ok.empty() && broken.empty()) return std::nullopt;
  // The world size the OK lines print ("global rank: 3/8").
  int64_t world = 0;
  std::set<int64_t> ok_ranks;
  for (const CommEvent* e : ok) {
    if (e->value) world = std::max(world, static_cast<int64_t>(*e->value));
    if (e->rank) ok_ranks.insert(*e->rank);
  }
  std::vector<int64_t> missing;
  for (int64_t r = 0; r < world; ++r) {
    if (!ok_ranks.count(r)) missing.push_back(r);
  }
  if (broken.empty() && missing.empty()) return std::nullopt;

  Finding f = NewFinding("comm.gpu_test_failed", Severity::kError,
                         "The distributed GPU test failed on some ranks");
  std::vector<std::string> broken_who;
  for (const CommEvent* e : broken) {
    // The label is "<hostname>-<local_rank>": the host is the label's.
    std::optional<int64_t> rank = e->rank;
    const std::string host = !e->detail.empty() ? e->detail : e->host;
    if (!rank && e->local_rank && facts.ranks)
      rank = facts.ranks->GlobalOfLocal(host, *e->local_rank);
    AddCulprit(f, HostOfRank(facts, rank, host), rank);
    std::string who = host.empty() ? "a rank" : host;
    if (e->local_rank) who += " (local rank " + std::to_string(*e->local_rank) + ")";
    if (rank) who = "rank " + std::to_string(*rank) + " on " + who;
    broken_who.push_back(who);
    if (f.evidence.size() < kMaxCited) f.evidence.push_back(facts.line(e->file_id, e->line_no));
  }
  for (int64_t r : missing) AddCulprit(f, HostOfRank(facts, r, ""), r);
  if (!ok.empty()) f.evidence.push_back(facts.line(ok.front()->file_id, ok.front()->line_no));

  std::string s;
  if (!broken.empty()) {
    s += Count(broken.size(), "rank", "ranks") + " printed \"is broken\": ";
    for (size_t i = 0; i < broken_who.size() && i < kMaxNamed; ++i)
      s += (i ? ", " : "") + broken_who[i];
    if (broken_who.size() > kMaxNamed) s += ", ...";
    s += ".";
  }
  if (!missing.empty()) {
    if (!s.empty()) s += " ";
    std::vector<std::string> hosts;
    for (int64_t r : missing) {
      const std::string h = HostOfRank(facts, r, "");
      if (!h.empty() && std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
    }
    std::sort(hosts.begin(), hosts.end());
    s += Count(missing.size(), "rank", "ranks") + " of " + std::to_string(world) + " (" +
         RankRanges(missing) + (hosts.empty() ? "" : ", on " + HostList(hosts)) +
         ") never printed \"is OK\".";
  }
  s += " " + std::to_string(ok_ranks.size()) + (world ? " of " + std::to_string(world) : "") +
       " ranks passed. The test initialises NCCL, runs an all-reduce and a barrier on every "
       "rank: a rank that fails it cannot take part in training either.";
  f.summary = std::move(s);
  f.recommendation =
      "Rerun the test with NCCL_DEBUG=INFO on the failing hosts and read the failing rank's "
      "traceback and NCCL WARN lines: a GPU in a bad state (nvidia-smi, Xid lines), a missing "
      "network device, or a rank that cannot reach the others; fix or exclude the host before "
      "training.";
  return f;
}

}  // namespace casefile::comm
