// comm.bandwidth_bound (docs/FINDINGS.md): the step waits for the network
// while the network is busy (the seed's "High network bandwidth demand"):
// long recv-done waits with a high network-busy share in XProf traces; NCCL
// kernels for a large share of the step in torch.profiler traces.
#include <algorithm>

#include "analyze/analyzers/comm/comm_trace_checks.h"
#include "analyze/analyzers/comm/comm_trace_common.h"
#include "analyze/analyzers/comm/comm_trace_thresholds.h"
#include "parse/trace/comm_trace_keys.h"

namespace casefile::comm {
namespace {

namespace tc = trace_comm;

struct Busy {
  double share = 0;      // busy time over bucket time, steady state
  size_t buckets = 0;    // steady-state buckets
  size_t saturated = 0;  // of them, over kSaturatedBucketShare busy
};

// The network timeline over the steady state (buckets from its start on;
// all buckets when the trace has no steady start).
Busy TimelineBusy(const TraceFile& t) {
  Busy b;
  const double from = t.Value(tc::kSteadyStartUs, -1e300);
  double busy = 0, span = 0;
  for (const NetTimelineRow& row : t.timeline) {
    if (row.t0_us < from) continue;
    const double len = row.t1_us - row.t0_us;
    if (len <= 0) continue;
    busy += std::min(row.busy_us, len);
    span += len;
    ++b.buckets;
    if (row.busy_us >= kSaturatedBucketShare * len) ++b.saturated;
  }
  if (span > 0) b.share = busy / span;
  return b;
}

// "a -> b (2.0 GiB, p50 1.2 ms)" for the links that moved the most bytes.
std::string TopLinks(const TraceFile& t) {
  std::vector<const NetLinkRow*> links;
  for (const NetLinkRow& l : t.links) links.push_back(&l);
  std::stable_sort(links.begin(), links.end(),
                   [](const NetLinkRow* a, const NetLinkRow* b) { return a->bytes > b->bytes; });
  std::string out;
  for (size_t i = 0; i < links.size() && i < 3; ++i) {
    out += (i ? ", " : "") + links[i]->src + " -> " + links[i]->dst + " (" +
           Bytes(links[i]->bytes) + ", p50 " + Micros(links[i]->lat_p50_us) + ")";
  }
  return out;
}

// The XProf form; "" when it does not hold.
std::string XprofPart(const TraceFile& t) {
  const double count = t.Value(tc::kRecvDoneCount);
  const double share = t.Value(tc::kRecvDoneShare);
  if (count < kMinRecvDones || share < kRecvDoneShareBound) return "";
  // The timeline (transfers and recv-done open) says how busy the network
  // was; comm_share also counts async collectives open while compute runs,
  // which is overlap, not load, so it stands in only without a timeline.
  const Busy timeline = TimelineBusy(t);
  const double busy = timeline.buckets > 0 ? timeline.share : t.Value(tc::kCommShare);
  if (busy < kNetworkBusyShareBound) return "";
  std::string part = TraceName(t) + ": waiting in recv-done " + Percent(share) +
                     " of the steady state (" + Number(count) + " recv-done ops, p50 " +
                     Micros(t.Value(tc::kRecvDoneP50Us)) + ", p90 " +
                     Micros(t.Value(tc::kRecvDoneP90Us)) + ", longest " +
                     Micros(t.Value(tc::kRecvDoneMaxUs)) + "), network busy " + Percent(busy);
  if (timeline.buckets > 0) {
    part += " (" + std::to_string(timeline.saturated) + " of " + std::to_string(timeline.buckets) +
            " timeline buckets over " + Percent(kSaturatedBucketShare) + " busy)";
  }
  if (t.Has(tc::kStepMedianUs)) part += ", median step " + Micros(t.Value(tc::kStepMedianUs));
  if (!t.links.empty()) part += "; busiest links " + TopLinks(t);
  return part;
}

// The torch.profiler form; "" when it does not hold.
std::string KinetoPart(const TraceFile& t) {
  const double kernels = t.Value(tc::kNcclKernels);
  const double share = t.Value(tc::kNcclKernelShare);
  if (kernels < kMinNcclKernels || share < kNcclKernelShareBound) return "";
  // torch.profiler writes one trace per rank: name the file too.
  const size_t slash = t.path.rfind('/');
  const std::string file = slash == std::string::npos ? t.path : t.path.substr(slash + 1);
  std::string part = TraceName(t) + (t.host.empty() ? "" : " (" + file + ")") +
                     ": NCCL kernels ran " + Percent(share) + " of the steady state (" +
                     Number(kernels) + " kernels, " + Micros(t.Value(tc::kNcclKernelUs)) + ")";
  if (t.Has(tc::kStepMedianUs)) part += ", median step " + Micros(t.Value(tc::kStepMedianUs));
  if (t.Has(tc::kRank)) part += ", rank " + Number(t.Value(tc::kRank));
  return part;
}

}  // namespace

std::optional<Finding> CheckBandwidthBound(const TraceFacts& facts) {
  Finding f = NewTraceFinding("comm.bandwidth_bound", Severity::kWarning,
                              "Steps bound by network bandwidth");
  std::vector<std::string> parts;
  std::vector<std::string> hosts;
  size_t cited = 0;
  for (const TraceFile& t : facts.traces) {
    std::string part = XprofPart(t);
    if (part.empty()) part = KinetoPart(t);
    if (part.empty()) continue;
    // The longest recv-done waits; a torch.profiler trace has none, and
    // cites where its steady state starts.
    if (cited < kMaxCitedTraces &&
        (AddMarkEvidence(facts, t, tc::kMarkRecvDoneLong, kMaxMarksPerTrace, f) ||
         AddMarkEvidence(facts, t, tc::kMarkSteadyStart, 1, f)))
      ++cited;
    AddHostCulprit(f, t.host);
    hosts.push_back(TraceName(t));
    parts.push_back(std::move(part));
  }
  if (f.evidence.empty()) return std::nullopt;
  std::string summary = "The step waits on a busy network on " + HostCount(hosts) + ": ";
  summary += JoinParts(parts);
  summary +=
      ". Long waits for received data while the network is busy most of the step mean these "
      "regions are bound by network bandwidth (net_links and net_timeline, `casefile query`, "
      "hold the per-link and over-time numbers).";
  f.summary = std::move(summary);
  f.recommendation =
      "1. Check the collectives' slack (comm.low_collective_slack): many low-slack collectives "
      "make bandwidth-bound regions. 2. Make sure the network settings are optimal "
      "(comm.tcp_config, the NIC and MTU). 3. Look at the model structure and sharding for ways "
      "to overlap more compute with communication (fewer, larger transfers). 4. Data "
      "parallel: make the per-replica batch large enough for compute to cover the gradient "
      "reduction.";
  return f;
}

}  // namespace casefile::comm
