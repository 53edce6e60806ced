// The latency matrix of the traces' network links: median transfer latency
// from each source to each destination, over the busiest endpoints.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "report/context/context_parts.h"

namespace casefile::context {

LatencyMatrix LoadLatency(const IndexFacts& facts) {
  LatencyMatrix m;
  // Several traces may see one pair: their medians are averaged, weighted
  // by transfers.
  struct Pair {
    double weighted = 0;
    int64_t transfers = 0;
  };
  std::map<std::pair<std::string, std::string>, Pair> pairs;
  std::map<std::string, int64_t> traffic;
  facts.index->Query(
      "SELECT src, dst, sum(lat_p50_us * max(transfers, 1)), sum(max(transfers, 1)) FROM "
      "net_links GROUP BY src, dst",
      [&](const QueryRow& row) {
        Pair& p = pairs[{CellText(row, 0), CellText(row, 1)}];
        p.weighted = CellReal(row, 2);
        p.transfers = CellInt(row, 3);
        traffic[CellText(row, 0)] += p.transfers;
        traffic[CellText(row, 1)] += p.transfers;
        return true;
      });
  m.endpoint_count = static_cast<int64_t>(traffic.size());
  if (traffic.empty()) return m;
  std::vector<std::pair<std::string, int64_t>> ordered(traffic.begin(), traffic.end());
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (ordered.size() > kContextEndpoints) ordered.resize(kContextEndpoints);
  // Shown by name, so that neighbours (host-1, host-2) sit together.
  for (const auto& [name, n] : ordered) m.endpoints.push_back(name);
  std::sort(m.endpoints.begin(), m.endpoints.end());
  const size_t n = m.endpoints.size();
  m.p50_us.assign(n * n, std::numeric_limits<double>::quiet_NaN());
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      auto it = pairs.find({m.endpoints[i], m.endpoints[j]});
      if (it != pairs.end() && it->second.transfers > 0) {
        m.p50_us[i * n + j] = it->second.weighted / static_cast<double>(it->second.transfers);
      }
    }
  }
  return m;
}

}  // namespace casefile::context
