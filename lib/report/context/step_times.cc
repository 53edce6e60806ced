// Step-time distributions per host (step times: analyze/step_times.h), with the
// stragglers marked: a host whose median step is 1.2 times the median of the
// host medians, or that a finding names.
#include "analyze/step_times.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "report/context/context_parts.h"

namespace casefile::context {
namespace {

constexpr double kStragglerRatio = 1.2;
// Step times read at most (analyze/step_times.h): bounds the memory of a
// pathological index (the hang analyzer reads as many).
constexpr size_t kMaxStepTimes = 4'000'000;

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
  // Values per host (the line's, else its file's, bundle's or bundle
  // name), each host's then sorted for its quantiles.
  std::map<std::string, std::vector<double>> by_host;
  std::vector<double>* values = nullptr;
  uint32_t last_series = UINT32_MAX;
  size_t count = 0;
  ForEachStoredStepTime(*facts.index, nullptr,
                        [&](uint32_t s, const StoredStepSeries& series, int64_t,
                            std::optional<int64_t>, double seconds) {
                          if (!(seconds >= 0)) return true;
                          if (count++ >= kMaxStepTimes) return false;
                          if (s != last_series) {
                            last_series = s;
                            std::string host;
                            if (series.host) {
                              host = *series.host;
                            } else if (const FileRow* f = facts.File(series.file_id)) {
                              host = facts.HostOf(*f);
                            }
                            values = &by_host[host];
                          }
                          values->push_back(seconds);
                          return true;
                        });
  std::vector<StepTimeStats> hosts;
  for (auto& [host, values] : by_host) {
    std::sort(values.begin(), values.end());
    StepTimeStats s;
    s.host = host;
    s.count = static_cast<int64_t>(values.size());
    s.min_s = values.front();
    s.max_s = values.back();
    s.p10_s = Quantile(values, 0.10);
    s.p50_s = Quantile(values, 0.50);
    s.p90_s = Quantile(values, 0.90);
    hosts.push_back(std::move(s));
  }
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
