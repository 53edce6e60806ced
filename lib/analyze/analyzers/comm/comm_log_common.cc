#include "analyze/analyzers/comm/comm_log_common.h"

#include <algorithm>

#include "analyze/analyzers/comm/comm_log_rules.h"
#include "analyze/failure_markers.h"

namespace casefile::comm {

Finding NewFinding(std::string_view code, Severity severity, std::string title) {
  Finding f;
  f.code = std::string(code);
  f.analyzer = kAnalyzerName;
  f.severity = severity;
  f.title = std::move(title);
  return f;
}

void AddCulprit(Finding& f, const std::string& host, std::optional<int64_t> rank) {
  if (host.empty() && !rank) return;
  for (Culprit& c : f.culprits) {
    const bool same_host = c.host.value_or("") == host;
    if (same_host && c.rank == rank) return;
    // A host already named with a rank covers a host-only mention of it.
    if (same_host && !rank && c.rank) return;
    // A host-only entry gains the rank when the rank is the first one named.
    if (same_host && rank && !c.rank) {
      c.rank = rank;
      return;
    }
  }
  if (f.culprits.size() >= kMaxCulprits) return;
  Culprit c;
  if (!host.empty()) c.host = host;
  c.rank = rank;
  f.culprits.push_back(std::move(c));
}

std::string HostList(const std::vector<std::string>& hosts, size_t max_named) {
  std::vector<std::string> names;
  for (const std::string& h : hosts) names.push_back(h.empty() ? "an unknown host" : h);
  return NameList(names, max_named);
}

GlobalRanks::GlobalRanks(const std::vector<NcclProc>& procs) {
  for (const NcclProc& p : procs) {
    if (p.parent.empty() && p.nranks && *p.nranks > world_) world_ = *p.nranks;
  }
  if (world_ == 0) return;
  for (const NcclProc& p : procs) {
    if (p.parent.empty() && p.nranks == world_ && p.rank) rank_.emplace(KeyOf(p), *p.rank);
  }
}

std::optional<int64_t> GlobalRanks::Of(const ProcKey& key) const {
  const auto it = rank_.find(key);
  if (it == rank_.end()) return std::nullopt;
  return it->second;
}

std::string HostOfRank(const CommLogFacts& facts, std::optional<int64_t> rank,
                       const std::string& fallback) {
  if (rank && facts.ranks) {
    if (const std::string* h = facts.ranks->HostOf(*rank)) return *h;
  }
  return fallback;
}

std::string WhoText(const std::string& host, std::optional<int64_t> rank) {
  if (rank && !host.empty()) return "rank " + std::to_string(*rank) + " (" + host + ")";
  if (rank) return "rank " + std::to_string(*rank);
  if (!host.empty()) return host;
  return "a process";
}

std::string Shorten(std::string_view s, size_t max) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  if (s.size() <= max) return std::string(s);
  size_t cut = s.rfind(' ', max);
  if (cut == std::string_view::npos || cut < max / 2) cut = max;
  return std::string(s.substr(0, cut)) + "...";
}

// A failure of a process that is not an NCCL report and not a consequence
// of another failure: a crash, a CUDA error, a process killed by a signal
// other than the launcher's SIGTERM or an abort (an abort follows an error
// reported elsewhere).
bool IsIndependentFailure(const CommEvent& e) {
  switch (e.kind) {
    case EventKind::kCrash: {
      const std::string_view d = e.detail;
      if (d.empty() || NamesConsequence(d)) return false;
      if (d.find("NCCL") != std::string_view::npos || d.find("nccl") != std::string_view::npos)
        return false;
      return !d.starts_with("SIGABRT") && !d.starts_with("Aborted") &&
             !d.starts_with("Fatal Python error: Aborted");
    }
    case EventKind::kCudaError:
      return !e.detail.starts_with("CUDA kernel errors might be asynchronously reported") &&
             !NamesConsequence(e.detail);
    case EventKind::kLauncher:
      return e.value && *e.value < 0 && !IsTerminationExit(e.value) &&
             static_cast<long long>(*e.value) != -6;
    default:
      return false;
  }
}

bool SameProcess(const CommEvent& a, const CommEvent& b) {
  if (a.rank && b.rank) return *a.rank == *b.rank;
  return a.file_id == b.file_id && SameHost(a.host, b.host);
}

}  // namespace casefile::comm
