#include "analyze/analyzers/hang/collective_view.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "analyze/analyzers/hang/collective_rules.h"

namespace casefile::hang::collective {

bool Before(const DistEvent* a, const DistEvent* b) {
  return std::tie(a->file_id, a->line_no) < std::tie(b->file_id, b->line_no);
}

std::string GroupKey(const std::string& pg) {
  std::string_view id(pg);
  id = id.substr(0, id.find('('));
  while (!id.empty() && id.front() == ' ') id.remove_prefix(1);
  while (!id.empty() && id.back() == ' ') id.remove_suffix(1);
  return id.empty() ? pg : std::string(id);
}

namespace {

// A crash whose text says the collective failed because another rank went
// away.
bool NamesPeerGone(const DistEvent& e) {
  if (!e.detail) return false;
  for (std::string_view m : {"remote process exited", "communicator was aborted",
                             "Some NCCL operations", "NCCL error"}) {
    if (e.detail->find(m) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

View BuildView(const DistInputs& in) {
  View v;
  std::vector<const DistEvent*> progress;
  std::vector<const DistEvent*> stuck;
  for (const DistEvent& e : in.events) {
    if (e.kind == DistKind::kWatchdogTimeout) {
      v.timeouts.push_back(&e);
    } else if (e.kind == DistKind::kWatchdogStuck) {
      stuck.push_back(&e);
    } else if (e.kind == DistKind::kWorkProgress) {
      progress.push_back(&e);
    } else if (e.kind == DistKind::kNcclFailed && e.rank) {
      v.spoke.insert(*e.rank);
    } else if (e.rank && (e.kind == DistKind::kCollectiveError ||
                          (e.kind == DistKind::kCrash && NamesPeerGone(e)))) {
      // A rank whose collective failed because a peer went away ("remote
      // process exited", an aborted communicator) was inside the
      // collective: it is no silent rank. (A KeyboardInterrupt or SIGTERM
      // traceback at the job's teardown says nothing of where it was.)
      v.spoke.insert(*e.rank);
    }
  }
  std::sort(v.timeouts.begin(), v.timeouts.end(), Before);
  std::sort(progress.begin(), progress.end(), Before);
  std::sort(stuck.begin(), stuck.end(), Before);
  int64_t first_stuck_ts = kNoTimestamp;
  std::set<std::pair<int64_t, std::string>> stuck_seen;  // (file, host) of rank-less lines
  for (const DistEvent* e : stuck) {
    if (e->ts_us != kNoTimestamp && (first_stuck_ts == kNoTimestamp || e->ts_us < first_stuck_ts))
      first_stuck_ts = e->ts_us;
    if (e->rank) {
      // A rank whose watchdog was stuck was inside NCCL: it is no silent rank.
      v.first_stuck.emplace(*e->rank, e);
      v.spoke.insert(*e->rank);
    } else if (stuck_seen.insert({e->file_id, e->host}).second) {
      v.stuck_rankless.push_back(e);
    }
  }

  // A line without a [PG ...] prefix belongs to the group that another line
  // of the same rank names for the same sequence number (torch 2.2-2.3 print
  // the timeout without the prefix and the progress line with it); else to
  // the only group any line names; else to the default group.
  std::set<std::string> named;
  std::map<std::pair<int64_t, int64_t>, std::string> named_at;
  for (const auto* list : {&v.timeouts, &progress}) {
    for (const DistEvent* e : *list) {
      if (!e->pg) continue;
      std::string key = GroupKey(*e->pg);
      named.insert(key);
      if (e->rank && e->seq) named_at.emplace(std::make_pair(*e->rank, *e->seq), std::move(key));
    }
  }
  auto group_of = [&](const DistEvent& e) -> Group& {
    std::string key;
    if (e.pg) {
      key = GroupKey(*e.pg);
    } else if (auto it = e.rank && e.seq ? named_at.find({*e.rank, *e.seq}) : named_at.end();
               it != named_at.end()) {
      key = it->second;
    } else {
      key = named.size() == 1 ? *named.begin() : "0";
    }
    Group& g = v.groups[key];
    g.key = key;
    // The label with the description ("0(default_pg)") reads best.
    if (e.pg && (g.label.empty() || (g.label.find('(') == std::string::npos &&
                                     e.pg->find('(') != std::string::npos))) {
      g.label = *e.pg;
    }
    return g;
  };
  std::set<std::tuple<int64_t, std::string, std::string, int64_t>> rankless_seen;
  for (const DistEvent* e : v.timeouts) {
    if (e->ts_us != kNoTimestamp &&
        (v.first_timeout_ts == kNoTimestamp || e->ts_us < v.first_timeout_ts)) {
      v.first_timeout_ts = e->ts_us;
    }
    if (!e->rank) {
      // Without a host the file stands for the process that wrote it.
      const int64_t file = e->host.empty() ? e->file_id : 0;
      if (rankless_seen
              .insert({file, e->host, e->pg ? GroupKey(*e->pg) : "", e->pg_rank.value_or(-1)})
              .second)
        v.rankless.push_back(e);
      continue;
    }
    v.first_timeout.emplace(*e->rank, e);
    v.spoke.insert(*e->rank);
    group_of(*e).timeouts.emplace(*e->rank, e);
  }
  if (v.timeouts.empty()) v.first_timeout_ts = first_stuck_ts;
  for (const DistEvent* e : progress) {
    if (!e->rank) continue;
    v.spoke.insert(*e->rank);
    group_of(*e).progress.emplace(*e->rank, e);
  }
  for (auto& [key, g] : v.groups) {
    std::map<int64_t, size_t> counts;
    for (const auto& [rank, e] : g.timeouts) {
      if (e->seq) ++counts[*e->seq];
    }
    if (!counts.empty()) {
      g.seq = ModeOf(counts);
      g.ranks_at_seq = counts[*g.seq];
      // The lowest rank at S whose line names the op: a line cut inside
      // its WorkNCCL fields (a hard-wrapped paste) tells less of the wait.
      for (const auto& [rank, e] : g.timeouts) {
        if (e->seq != g.seq) continue;
        if (!g.at_seq) g.at_seq = e;
        if (e->op) {
          g.at_seq = e;
          break;
        }
      }
    }
    if (g.timeouts.empty()) continue;
    if (!v.primary || g.timeouts.size() > v.primary->timeouts.size()) v.primary = &g;
  }
  return v;
}

// "ALLREDUCE, 4194304 elements, timeout 600000 ms"
std::string WorkDetails(const DistEvent* e) {
  if (!e) return "";
  std::vector<std::string> parts;
  if (e->op) parts.push_back(*e->op);
  if (e->numel_in && e->numel_out && *e->numel_in != *e->numel_out) {
    parts.push_back("NumelIn " + std::to_string(*e->numel_in) + ", NumelOut " +
                    std::to_string(*e->numel_out));
  } else if (e->numel_in || e->numel_out) {
    parts.push_back(std::to_string(e->numel_in ? *e->numel_in : *e->numel_out) + " elements");
  }
  if (e->timeout_ms) parts.push_back("timeout " + std::to_string(*e->timeout_ms) + " ms");
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

namespace {

std::string LabelSuffix(std::string label) {
  if (label.empty()) return "";
  // "0(default_pg)" as the prefix prints it reads "0 (default_pg)".
  const size_t open = label.find('(');
  if (open != std::string::npos && open > 0 && label[open - 1] != ' ') label.insert(open, " ");
  return " in process group " + label;
}

}  // namespace

std::string GroupSuffix(const Group& g) { return LabelSuffix(g.label); }

bool StuckOnly(const View& v) {
  return v.timeouts.empty() && (!v.first_stuck.empty() || !v.stuck_rankless.empty());
}

namespace {

// "the ProcessGroupNCCL watchdog of 8 ranks got stuck in a NCCL or CUDA call
// (480 s without progress)"
std::string StuckClause(const View& v) {
  std::vector<const DistEvent*> lines;
  for (const auto& [rank, e] : v.first_stuck) lines.push_back(e);
  if (lines.empty()) lines = v.stuck_rankless;
  std::map<int64_t, size_t> secs;
  for (const DistEvent* e : lines) {
    if (e->elapsed_ms) ++secs[*e->elapsed_ms / 1000];
  }
  const size_t n = lines.size();
  std::string s = "the ProcessGroupNCCL watchdog of " +
                  (v.first_stuck.empty() ? Count(n, "process", "processes") +
                                               " (their lines name "
                                               "no rank)"
                                         : Count(n, "rank", "ranks")) +
                  " got stuck in a NCCL or CUDA call";
  if (!secs.empty()) s += " (" + std::to_string(ModeOf(secs)) + " s without progress)";
  return s;
}

}  // namespace

// "31 ranks wait at SeqNum 1042 (ALLREDUCE, 4194304 elements, timeout 600000 ms)"
std::string WaitClause(const View& v) {
  if (StuckOnly(v)) return StuckClause(v);
  if (!v.primary) {
    // No timeout names a global rank: the same account, of the waiters.
    std::map<int64_t, size_t> counts;
    for (const DistEvent* e : v.rankless) {
      if (e->seq) ++counts[*e->seq];
    }
    const size_t n = v.rankless.size();
    std::string s;
    const DistEvent* shown = v.rankless.empty() ? nullptr : v.rankless.front();
    if (!counts.empty()) {
      const int64_t seq = ModeOf(counts);
      s = Count(counts[seq], "rank waits", "ranks wait") + " at SeqNum " + std::to_string(seq);
      shown = nullptr;
      for (const DistEvent* e : v.rankless) {
        if (e->seq != seq) continue;
        if (!shown) shown = e;
        if (e->op) {
          shown = e;
          break;
        }
      }
    } else {
      s = Count(n, "rank timed out", "ranks timed out") + " waiting";
    }
    const std::string details = WorkDetails(shown);
    if (!details.empty()) s += " (" + details + ")";
    if (shown && shown->pg) s += LabelSuffix(*shown->pg);
    return s + " (" + (n == 1 ? "its line names" : "their lines name") + " no global rank)";
  }
  const Group& g = *v.primary;
  std::string s;
  if (g.seq) {
    s = Count(g.ranks_at_seq, "rank waits", "ranks wait") + " at SeqNum " + std::to_string(*g.seq);
  } else {
    s = Count(g.timeouts.size(), "rank timed out", "ranks timed out") + " waiting";
  }
  const std::string details = WorkDetails(g.at_seq ? g.at_seq : g.timeouts.begin()->second);
  if (!details.empty()) s += " (" + details + ")";
  s += GroupSuffix(g);
  if (v.groups.size() > 1) {
    size_t others = 0;
    for (const auto& [key, other] : v.groups) {
      if (&other != &g) others += other.timeouts.size();
    }
    if (others > 0) s += "; " + Count(others, "more timeout", "more timeouts") + " in other groups";
  }
  return s;
}

size_t WaitingCount(const View& v) {
  if (StuckOnly(v)) return v.first_stuck.empty() ? v.stuck_rankless.size() : v.first_stuck.size();
  return v.first_timeout.empty() ? v.rankless.size() : v.first_timeout.size();
}

void CiteWaiting(const View& v, LineCitations& ev) {
  if (StuckOnly(v)) {
    size_t n = 0;
    for (const auto& [rank, e] : v.first_stuck) {
      if (n++ >= kMaxWaitingCited) break;
      ev.Add(e->file_id, e->line_no);
    }
    for (size_t i = 0; v.first_stuck.empty() && i < v.stuck_rankless.size() && i < kMaxWaitingCited;
         ++i)
      ev.Add(v.stuck_rankless[i]->file_id, v.stuck_rankless[i]->line_no);
    return;
  }
  size_t n = 0;
  for (const auto& [rank, e] : v.first_timeout) {
    if (n++ >= kMaxWaitingCited) break;
    ev.Add(e->file_id, e->line_no);
  }
  // Timeouts that name no rank still show the hang.
  for (size_t i = 0; v.first_timeout.empty() && i < v.rankless.size() && i < kMaxWaitingCited; ++i)
    ev.Add(v.rankless[i]->file_id, v.rankless[i]->line_no);
}

}  // namespace casefile::hang::collective
