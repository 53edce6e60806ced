// Step-time distributions per host (dist_events kind step_time), with the
// stragglers marked: a host whose median step is 1.2 times the median of the
// host medians, or that a finding names.
#include <algorithm>
#include <cmath>

#include "report/context/context_parts.h"

namespace casefile::context {
namespace {

constexpr double kStragglerRatio = 1.2;

// Nearest-rank quantile of sorted values.
double Quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const size_t i = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size()))) - (q > 0);
  return sorted[std::min(i, sorted.size() - 1)];
}

}  // namespace

std::vector<StepTimeStats> LoadStepTimes(const IndexFacts& facts,
                                         const std::vector<Finding>& findings,
                                         int64_t* host_count) {
  // Counts first, so that the values of one host arrive sorted from SQLite
  // and only one host's values are held at a time.
  std::vector<StepTimeStats> hosts;
  std::vector<double> values;
  std::string current;
  bool any = false;
  auto flush = [&]() {
    if (!any || values.empty()) return;
    StepTimeStats s;
    s.host = current;
    s.count = static_cast<int64_t>(values.size());
    s.min_s = values.front();
    s.max_s = values.back();
    s.p10_s = Quantile(values, 0.10);
    s.p50_s = Quantile(values, 0.50);
    s.p90_s = Quantile(values, 0.90);
    hosts.push_back(std::move(s));
    values.clear();
  };
  facts.index->Query(
      "SELECT coalesce(e.host, f.host, b.host, b.name) AS h, e.value FROM dist_events AS e "
      "JOIN files AS f ON f.id = e.file_id JOIN bundles AS b ON b.id = f.bundle_id "
      "WHERE e.kind = 'step_time' AND e.value IS NOT NULL AND e.value >= 0 ORDER BY h, e.value",
      [&](const QueryRow& row) {
        const std::string host = CellText(row, 0);
        if (!any || host != current) {
          flush();
          current = host;
          any = true;
        }
        values.push_back(CellReal(row, 1));
        return true;
      });
  flush();
  *host_count = static_cast<int64_t>(hosts.size());
  if (hosts.empty()) return hosts;

  std::vector<double> medians;
  for (const auto& h : hosts) medians.push_back(h.p50_s);
  std::sort(medians.begin(), medians.end());
  const double typical = Quantile(medians, 0.5);
  const std::vector<std::string> culprits = CulpritHosts(findings);
  for (auto& h : hosts) {
    const bool named = std::find(culprits.begin(), culprits.end(), h.host) != culprits.end();
    const bool slow = hosts.size() >= 3 && typical > 0 && h.p50_s >= kStragglerRatio * typical;
    h.straggler = slow || (named && h.p50_s > typical);
  }
  // Kept when capped: the stragglers, then the hosts findings name, then
  // the rest by name; shown stragglers first, then by name.
  auto named = [&](const StepTimeStats& h) {
    return std::find(culprits.begin(), culprits.end(), h.host) != culprits.end();
  };
  std::stable_sort(hosts.begin(), hosts.end(), [&](const StepTimeStats& a, const StepTimeStats& b) {
    if (a.straggler != b.straggler) return a.straggler;
    return named(a) && !named(b);
  });
  if (hosts.size() > kContextHosts) hosts.resize(kContextHosts);
  std::stable_sort(hosts.begin(), hosts.end(), [](const StepTimeStats& a, const StepTimeStats& b) {
    if (a.straggler != b.straggler) return a.straggler;
    return a.host < b.host;
  });
  return hosts;
}

}  // namespace casefile::context
