// comm.dma_premap_exhausted (docs/FINDINGS.md): Megascale registers host
// memory for DMA (MapDmaBuffer) right after start-up; registrations in the
// steady state mean the premapped region is too small and transfers pay for
// a registration (the seed's "Check for exhausted mapped DMA buffers").
#include <algorithm>

#include "analyze/analyzers/comm/comm_trace_checks.h"
#include "analyze/analyzers/comm/comm_trace_common.h"
#include "analyze/analyzers/comm/comm_trace_thresholds.h"
#include "parse/trace/comm_trace_keys.h"

namespace casefile::comm {

namespace tc = trace_comm;

std::optional<Finding> CheckDmaPremapExhausted(const TraceFacts& facts) {
  Finding f = NewTraceFinding("comm.dma_premap_exhausted", Severity::kWarning,
                              "Host memory registered for DMA in the steady state");
  std::vector<std::string> parts;
  std::vector<std::string> hosts;
  size_t cited = 0;
  for (const TraceFile& t : facts.traces) {
    const double steady = t.Value(tc::kMapDmaSteady);
    if (steady < kMinSteadyMapDma) continue;
    if (cited < kMaxCitedTraces &&
        AddMarkEvidence(facts, t, tc::kMarkMapDmaSteady, kMaxMarksPerTrace, f))
      ++cited;
    AddHostCulprit(f, t.host);
    hosts.push_back(TraceName(t));
    std::string part =
        TraceName(t) + ": " + Number(steady) + " MapDmaBuffer call(s) in the steady state";
    if (t.Has(tc::kMapDmaTotal))
      part += " (" + Number(t.Value(tc::kMapDmaTotal)) + " in the trace)";
    parts.push_back(std::move(part));
  }
  if (f.evidence.empty()) return std::nullopt;
  std::string summary = "MapDmaBuffer calls after the first steps on " + HostCount(hosts) + ": ";
  summary += JoinParts(parts);
  summary +=
      ". Host memory for DMA is registered once at start-up; registrations in the steady state "
      "mean the premapped region is exhausted and transfers wait for new mappings.";
  summary += PremapSentence(facts);
  f.summary = std::move(summary);
  f.recommendation = "Raise --megascale_grpc_premap_memory_bytes" + PremapAdvice(facts) +
                     " in LIBTPU_INIT_ARGS, restart the job and capture a new trace: no "
                     "MapDmaBuffer call should appear after the first steps.";
  return f;
}

}  // namespace casefile::comm
