// comm.rpc_latency (docs/FINDINGS.md): the latency of the transport's RPCs
// is constantly high, or spikes (the seed's example: sporadic 200 ms
// spikes), while bandwidth is not the limit. The seed: high RPC latency in
// cloud is often the TCP configuration inside the container.
#include <algorithm>

#include "analyze/analyzers/comm/comm_trace_checks.h"
#include "analyze/analyzers/comm/comm_trace_common.h"
#include "analyze/analyzers/comm/comm_trace_thresholds.h"
#include "parse/trace/comm_trace_keys.h"

namespace casefile::comm {

namespace tc = trace_comm;

std::optional<Finding> CheckRpcLatency(const TraceFacts& facts) {
  Finding f = NewTraceFinding("comm.rpc_latency", Severity::kWarning, "High RPC latency");
  std::vector<std::string> parts;
  std::vector<std::string> hosts;
  size_t cited = 0;
  for (const TraceFile& t : facts.traces) {
    const double count = t.Value(tc::kRpcCount);
    if (count < kMinRpcs) continue;
    const double p50 = t.Value(tc::kRpcP50Us);
    const double spikes = t.Value(tc::kRpcSpikes);
    const bool constant = p50 >= kRpcP50HighUs;
    const bool spiking = spikes >= kMinRpcSpikes;
    if (!constant && !spiking) continue;
    // The spikes themselves; a constantly slow trace without kept spikes
    // cites where its steady state starts.
    if (cited < kMaxCitedTraces &&
        (AddMarkEvidence(facts, t, tc::kMarkRpcSpike, kMaxMarksPerTrace, f) ||
         AddMarkEvidence(facts, t, tc::kMarkSteadyStart, 1, f)))
      ++cited;
    AddHostCulprit(f, t.host);
    hosts.push_back(TraceName(t));
    std::string part = TraceName(t) + ": " + Number(count) + " RPCs, median " + Micros(p50) +
                       ", p99 " + Micros(t.Value(tc::kRpcP99Us));
    if (constant) part += " (constantly high: over " + Micros(kRpcP50HighUs) + ")";
    if (spiking) {
      part += "; " + Number(spikes) + " spikes";
      double longest = 0;
      for (const TraceMark& m : t.Marks(tc::kMarkRpcSpike))
        longest = std::max(longest, m.dur_us.value_or(0));
      if (longest > 0) part += " up to " + Micros(longest);
      if (t.Has(tc::kRpcSpikePeriodUs)) {
        part += ", periodic: every " + Micros(t.Value(tc::kRpcSpikePeriodUs));
      } else {
        part += ", sporadic";
      }
    }
    parts.push_back(std::move(part));
  }
  if (f.evidence.empty()) return std::nullopt;
  std::string summary = "RPC latency is high on " + HostCount(hosts) + ": ";
  summary += JoinParts(parts);
  summary +=
      ". Constant or periodic RPC delays point at the MXLA transport's RPC path rather than "
      "bandwidth; in cloud they are most often the TCP configuration inside the container "
      "(see comm.tcp_config when the bundle has sysctl outputs). net_timeline.rpc_max_us "
      "(`casefile query`) shows the latency over time.";
  f.summary = std::move(summary);
  f.recommendation =
      "Check the TCP settings inside the container (casefile collect gathers them into "
      "sysinfo/sysctl_net.txt; comm.tcp_config judges them): buffer sizes, "
      "tcp_slow_start_after_idle=0, MTU probing, the backlog. On Cloud TPU, ask Google Cloud ML "
      "Compute Services (CMCS) for the correct settings; then capture a new trace and compare "
      "the RPC latency timeline.";
  return f;
}

}  // namespace casefile::comm
