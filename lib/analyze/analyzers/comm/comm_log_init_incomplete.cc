// comm.init_incomplete (docs/FINDINGS.md): ranks of one communicator that
// started its init and never printed Init COMPLETE while other ranks of it
// did. The others then wait in their first collective for the missing
// ranks; the culprits are the ranks stuck in init, not the waiters.
#include <algorithm>
#include <map>
#include <set>

#include "analyze/analyzers/comm/comm_log_common.h"
#include "analyze/analyzers/comm/comm_log_findings.h"

namespace casefile::comm {
namespace {

// One rank of a communicator, merged over the rows that show it (the same
// process may be logged in two files).
struct Member {
  const NcclProc* first = nullptr;     // its first row
  const NcclProc* complete = nullptr;  // a row that reached Init COMPLETE
};

}  // namespace

std::optional<Finding> BuildInitIncomplete(const CommLogFacts& facts) {
  // Communicators by commId, else by size for versions that print none.
  std::map<std::string, std::map<std::string, Member>> comms;
  for (const NcclProc& p : facts.procs) {
    if (p.comm.empty() || !p.init_line) continue;
    std::string key;
    if (!p.comm_id.empty()) {
      key = "id:" + p.comm_id;
    } else if (p.nranks) {
      key = "n:" + std::to_string(*p.nranks);
    } else {
      continue;
    }
    const std::string who =
        p.rank ? "r" + std::to_string(*p.rank)
               : "p" + std::to_string(p.file_id) + ":" + p.host + ":" + std::to_string(p.pid);
    Member& m = comms[key][who];
    if (!m.first) m.first = &p;
    if (p.complete_line && !m.complete) m.complete = &p;
  }
  // Before NCCL 2.20 the commId is printed only on the Init COMPLETE line:
  // a rank stuck in init has none, and its row lands under its size alone
  // while its peers that completed sit under their commId. One communicator
  // of that size with a commId is theirs; with several, which one is
  // unknown and the rows stay apart.
  for (auto it = comms.begin(); it != comms.end();) {
    if (!it->first.starts_with("n:")) {
      ++it;
      continue;
    }
    const std::string nranks = it->first.substr(2);
    std::map<std::string, Member>* target = nullptr;
    size_t candidates = 0;
    for (auto& [key, members] : comms) {
      if (!key.starts_with("id:")) continue;
      const Member& any = members.begin()->second;
      if (any.first->nranks && std::to_string(*any.first->nranks) == nranks) {
        ++candidates;
        target = &members;
      }
    }
    if (candidates != 1) {
      ++it;
      continue;
    }
    for (const auto& [who, m] : it->second) {
      Member& into = (*target)[who];
      if (!into.first) into.first = m.first;
      if (!into.complete) into.complete = m.complete;
    }
    it = comms.erase(it);
  }
  const GlobalRanks global(facts.procs);
  Finding f = NewFinding("comm.init_incomplete", Severity::kError,
                         "Ranks never completed communicator init");
  std::string s;
  size_t cited = 0;
  for (const auto& [key, members] : comms) {
    std::vector<const Member*> stuck, done;
    for (const auto& [who, m] : members) (m.complete ? done : stuck).push_back(&m);
    if (stuck.empty() || done.empty()) continue;
    const NcclProc& any = *done.front()->complete;
    std::vector<int64_t> ranks;
    std::vector<std::string> hosts;
    for (const Member* m : stuck) {
      const NcclProc& p = *m->first;
      std::optional<int64_t> rank = global.Of(KeyOf(p));
      if (!rank && p.nranks && global.world() == *p.nranks) rank = p.rank;
      const std::string host = HostOfRank(facts, rank, p.host);
      AddCulprit(f, host, rank);
      if (rank) ranks.push_back(*rank);
      if (std::find(hosts.begin(), hosts.end(), host) == hosts.end()) hosts.push_back(host);
      if (cited++ < kMaxCited) f.evidence.push_back(facts.line(p.file_id, *p.init_line));
    }
    f.evidence.push_back(facts.line(any.file_id, *any.complete_line));
    std::sort(hosts.begin(), hosts.end());
    if (!s.empty()) s += " ";
    const std::string comm_name =
        !any.comm_id.empty() ? "communicator " + any.comm_id : "the communicator";
    const int64_t nranks = any.nranks.value_or(static_cast<int64_t>(members.size()));
    s += std::to_string(done.size()) + " of the " + std::to_string(nranks) + " ranks of " +
         comm_name + " reached Init COMPLETE; " + Count(stuck.size(), "rank", "ranks");
    if (!ranks.empty()) s += " (" + RankRanges(ranks) + ")";
    s += " on " + HostList(hosts) + " started init and never completed it.";
    if (static_cast<int64_t>(done.size() + stuck.size()) < nranks)
      s += " " + std::to_string(nranks - static_cast<int64_t>(done.size() + stuck.size())) +
           " ranks printed no init line in the bundle.";
  }
  if (f.evidence.empty()) return std::nullopt;
  s += " The ranks that completed wait for them in their first collective; the stuck ranks are "
       "where to look: their last NCCL lines show the step of init they stopped at (bootstrap, "
       "connecting to a peer, a transport set-up).";
  f.summary = std::move(s);
  f.recommendation =
      "Read the NCCL lines of the stuck ranks after their Init START: a bootstrap that never "
      "connects points at the network or a firewall between the hosts (NCCL_SOCKET_IFNAME), a "
      "stop while connecting channels at the transport (InfiniBand devices, GPUDirect, "
      "shared memory limits of the container); also check that every rank called the same "
      "communicator creation (new_group / split) in the same order.";
  return f;
}

}  // namespace casefile::comm
