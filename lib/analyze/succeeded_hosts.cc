#include "analyze/succeeded_hosts.h"

#include <algorithm>

namespace casefile {
namespace {

// A bundle of 16k hosts has as many agents; more rows than this are not
// a launcher's.
constexpr size_t kMaxHosts = 100'000;

bool SameHostName(std::string_view a, std::string_view b) {
  if (a == b) return true;
  if (a.size() > b.size()) std::swap(a, b);
  return !a.empty() && b.starts_with(a) && b[a.size()] == '.';
}

}  // namespace

std::vector<std::string> LoadSucceededHosts(const IndexReader& index) {
  std::vector<std::string> hosts;
  index.Query(
      "SELECT DISTINCT coalesce(e.host, f.host) FROM dist_events AS e JOIN files AS f ON "
      "f.id = e.file_id WHERE e.kind = 'launcher_success'",
      [&](const QueryRow& r) {
        if (r.values[0] && !r.values[0]->empty()) hosts.push_back(*r.values[0]);
        return hosts.size() < kMaxHosts;
      });
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  return hosts;
}

bool HostSucceeded(const std::vector<std::string>& hosts, std::string_view host) {
  if (host.empty()) return false;
  return std::any_of(hosts.begin(), hosts.end(),
                     [&](const std::string& h) { return SameHostName(h, host); });
}

bool AllCulpritHostsSucceeded(const Finding& f, const std::vector<std::string>& hosts) {
  if (f.culprits.empty() || hosts.empty()) return false;
  return std::all_of(f.culprits.begin(), f.culprits.end(),
                     [&](const Culprit& c) { return c.host && HostSucceeded(hosts, *c.host); });
}

void SoftenIfHostsSucceeded(Finding& f, const std::vector<std::string>& hosts) {
  if (f.severity != Severity::kError || !AllCulpritHostsSucceeded(f, hosts)) return;
  f.severity = Severity::kWarning;
  f.summary +=
      " The launcher of every host named reported afterwards that its workers finished "
      "(torchrun's worker group succeeded), so this did not end the run there: a warning.";
}

}  // namespace casefile
