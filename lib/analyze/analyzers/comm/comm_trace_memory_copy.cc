// comm.memory_copy (docs/FINDINGS.md): the Megascale DCN transport is
// zero-copy; a "Megascale: Memory Copy" event inside a network receive
// means received data went through a bounce buffer (the seed's "Check for
// memory copies during network transfers").
#include <algorithm>

#include "analyze/analyzers/comm/comm_trace_checks.h"
#include "analyze/analyzers/comm/comm_trace_common.h"
#include "analyze/analyzers/comm/comm_trace_thresholds.h"
#include "parse/trace/comm_trace_keys.h"

namespace casefile::comm {

namespace tc = trace_comm;

std::optional<Finding> CheckMemoryCopy(const TraceFacts& facts) {
  Finding f = NewTraceFinding("comm.memory_copy", Severity::kWarning,
                              "Memory copies during network receives");
  std::vector<std::string> parts;
  std::vector<std::string> hosts;
  size_t cited = 0;
  for (const TraceFile& t : facts.traces) {
    const double in_recv = t.Value(tc::kMemoryCopyInRecv);
    if (in_recv < kMinMemoryCopiesInRecv) continue;
    if (cited < kMaxCitedTraces &&
        AddMarkEvidence(facts, t, tc::kMarkMemoryCopy, kMaxMarksPerTrace, f))
      ++cited;
    AddHostCulprit(f, t.host);
    hosts.push_back(TraceName(t));
    std::string part = TraceName(t) + ": " + Number(in_recv) + " memory cop" +
                       (in_recv == 1 ? "y" : "ies") + " inside network receives";
    if (t.Has(tc::kMemoryCopyTotal))
      part += " (" + Number(t.Value(tc::kMemoryCopyTotal)) + " in the trace)";
    parts.push_back(std::move(part));
  }
  if (f.evidence.empty()) return std::nullopt;
  std::string summary =
      "\"Megascale: Memory Copy\" events overlap network receives on " + HostCount(hosts) + ": ";
  summary += JoinParts(parts);
  summary +=
      ". The DCN transport is meant to be zero-copy; a copy during a receive means the "
      "destination buffer was outside the premapped host memory, and every such transfer is "
      "copied once more.";
  summary += PremapSentence(facts);
  f.summary = std::move(summary);
  f.recommendation = "Raise --megascale_grpc_premap_memory_bytes" + PremapAdvice(facts) +
                     " in LIBTPU_INIT_ARGS, restart the job and check the new trace for "
                     "\"Megascale: Memory Copy\" during receives.";
  return f;
}

}  // namespace casefile::comm
