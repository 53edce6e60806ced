// comm.low_collective_slack (docs/FINDINGS.md): async collectives whose
// slack (from the end of the -start op to the start of its -done op: the
// time compute can overlap the transfer) is near zero, for a large share of
// the steady state's collectives (the seed's "Collective Slack too low").
#include <algorithm>
#include <cstdlib>

#include "analyze/analyzers/comm/comm_trace_checks.h"
#include "analyze/analyzers/comm/comm_trace_common.h"
#include "analyze/analyzers/comm/comm_trace_thresholds.h"
#include "parse/trace/comm_trace_keys.h"

namespace casefile::comm {
namespace {

namespace tc = trace_comm;

// The first number of a mark's detail ("3.5", "slack 3.5 us"), if any.
std::optional<double> FirstNumber(const std::string& s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if ((s[i] >= '0' && s[i] <= '9') ||
        (s[i] == '-' && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '9')) {
      char* end = nullptr;
      const double v = std::strtod(s.c_str() + i, &end);
      if (end != s.c_str() + i) return v;
    }
  }
  return std::nullopt;
}

// "all-reduce-start.3 (slack 2.0 us), ..." for the tightest kept ops.
std::string WorstOps(const std::vector<TraceMark>& marks) {
  std::vector<const TraceMark*> sorted;
  for (const TraceMark& m : marks) sorted.push_back(&m);
  std::stable_sort(sorted.begin(), sorted.end(), [](const TraceMark* a, const TraceMark* b) {
    return FirstNumber(a->detail).value_or(1e300) < FirstNumber(b->detail).value_or(1e300);
  });
  std::string out;
  for (size_t i = 0; i < sorted.size() && i < kMaxMarksPerTrace; ++i) {
    const std::string name = EventName(sorted[i]->text);
    const std::optional<double> slack = FirstNumber(sorted[i]->detail);
    out += (i ? ", " : "") + (name.empty() ? std::string("an op") : name);
    if (slack) {
      out += " (slack " + Micros(std::max(0.0, *slack)) + ")";
    } else if (!sorted[i]->detail.empty()) {
      out += " (" + sorted[i]->detail + ")";
    }
  }
  return out;
}

}  // namespace

std::optional<Finding> CheckLowCollectiveSlack(const TraceFacts& facts) {
  Finding f = NewTraceFinding("comm.low_collective_slack", Severity::kWarning,
                              "Collectives with near-zero slack");
  std::vector<std::string> parts;
  std::vector<std::string> hosts;
  size_t cited = 0;
  for (const TraceFile& t : facts.traces) {
    const double collectives = t.Value(tc::kCollectives);
    const double low = t.Value(tc::kLowSlack);
    if (collectives < kMinCollectives || low / collectives < kLowSlackShare) continue;
    if (cited < kMaxCitedTraces &&
        AddMarkEvidence(facts, t, tc::kMarkLowSlack, kMaxMarksPerTrace, f))
      ++cited;
    AddHostCulprit(f, t.host);
    hosts.push_back(TraceName(t));
    std::string part = TraceName(t) + ": " + Percent(low / collectives) + " of " +
                       Number(collectives) + " steady-state collectives (" + Number(low) +
                       ") had near-zero slack";
    if (t.Has(tc::kSlackP50Us)) part += ", median slack " + Micros(t.Value(tc::kSlackP50Us));
    const std::vector<TraceMark>& marks = t.Marks(tc::kMarkLowSlack);
    if (!marks.empty()) part += "; the tightest: " + WorstOps(marks);
    parts.push_back(std::move(part));
  }
  if (f.evidence.empty()) return std::nullopt;
  std::string summary =
      "Collectives leave the network no time to overlap with compute on " + HostCount(hosts) + ": ";
  summary += JoinParts(parts);
  summary +=
      ". A collective with no slack is waited for as soon as it starts: its transfer time adds "
      "to the step instead of hiding behind compute, and such regions become bound by network "
      "bandwidth.";
  f.summary = std::move(summary);
  f.recommendation =
      "Find what keeps the program from overlapping compute and communication: start "
      "collectives earlier (XLA's async collective fusion and latency-hiding scheduler, e.g. "
      "--xla_tpu_enable_async_collective_fusion=true, "
      "--xla_tpu_overlap_compute_collective_tc=true), change the sharding so results are needed "
      "later, and (data parallel) give each replica a batch large enough to cover the "
      "reduction.";
  return f;
}

}  // namespace casefile::comm
