#include "analyze/succeeded_hosts.h"

#include <algorithm>

#include "analyze/host_names.h"

namespace casefile {
namespace {

// A bundle of 16k hosts has as many agents; more rows than this are not
// a launcher's.
constexpr size_t kMaxRows = 100'000;

}  // namespace

LauncherSuccesses LoadLauncherSuccesses(const IndexReader& index) {
  LauncherSuccesses s;
  size_t rows = 0;
  index.Query(
      "SELECT coalesce(e.host, f.host), f.path, e.line_no FROM dist_events AS e JOIN files AS f "
      "ON f.id = e.file_id WHERE e.kind = 'launcher_success'",
      [&](const QueryRow& r) {
        if (r.values[0] && !r.values[0]->empty()) s.hosts.push_back(*r.values[0]);
        if (r.values[1] && r.values[2]) {
          int64_t& last = s.last_line[*r.values[1]];
          last = std::max(last, static_cast<int64_t>(std::stoll(*r.values[2])));
        }
        return ++rows < kMaxRows;
      });
  std::sort(s.hosts.begin(), s.hosts.end());
  s.hosts.erase(std::unique(s.hosts.begin(), s.hosts.end()), s.hosts.end());
  return s;
}

bool HostSucceeded(const LauncherSuccesses& s, std::string_view host) {
  if (host.empty()) return false;
  return std::any_of(s.hosts.begin(), s.hosts.end(),
                     [&](const std::string& h) { return SameHost(h, host); });
}

void SoftenIfHostsSucceeded(Finding& f, const LauncherSuccesses& s) {
  if (f.severity != Severity::kError || f.culprits.empty() || f.evidence.empty()) return;
  for (const Culprit& c : f.culprits) {
    if (!c.host || !HostSucceeded(s, *c.host)) return;
  }
  // The agent's own teardown follows its report within a few lines (its
  // exit barrier: "Error waiting on exit barrier" and its traceback).
  constexpr int64_t kTeardownLines = 16;
  for (const Evidence& e : f.evidence) {
    const auto it = s.last_line.find(e.path);
    if (it == s.last_line.end() || e.line > it->second + kTeardownLines) return;
  }
  f.severity = Severity::kWarning;
  f.summary +=
      " The launcher of every host named reported afterwards, in the same log, that its workers "
      "finished (torchrun's worker group succeeded), so this did not end the run there: a "
      "warning.";
}

}  // namespace casefile
