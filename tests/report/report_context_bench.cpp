// Times the report context load (lib/report/report_context.h) on an existing
// index, apart from the analyzers, for docs/REPORTS.md:
//   report_context_bench INDEX.db [REPEATS]
// Prints the fastest and median wall time and what was loaded.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "index/index_reader.h"
#include "report/report_context.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: report_context_bench INDEX.db [REPEATS]\n");
    return 2;
  }
  const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
  auto index = casefile::IndexReader::Open(argv[1]);
  std::vector<double> ms;
  casefile::ReportContext c;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    c = casefile::LoadReportContext(*index, {});
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("context load: min %.1f ms, median %.1f ms over %d runs\n", ms.front(),
              ms[ms.size() / 2], repeats);
  std::printf(
      "hosts %lld (timeline %zu), versions %zu, loss series %lld, step-time hosts %lld, "
      "endpoints %lld, warnings %zu\n",
      static_cast<long long>(c.timeline.host_count), c.timeline.hosts.size(), c.versions.size(),
      static_cast<long long>(c.loss_series_count), static_cast<long long>(c.step_time_host_count),
      static_cast<long long>(c.latency.endpoint_count), c.warnings.size());
  return 0;
}
