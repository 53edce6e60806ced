// The rules of the trace half of the comm analyzer (docs/FINDINGS.md,
// section "comm"), each a function of the facts (comm_trace_inputs.h) so
// that tests can run one on a hand-built index. One finding per code,
// naming every host where it holds.
#pragma once

#include <optional>
#include <vector>

#include "analyze/analyzers/comm/comm_trace_inputs.h"
#include "analyze/finding.h"

namespace casefile::comm {

// comm.dma_premap_exhausted: MapDmaBuffer calls in a trace's steady state.
std::optional<Finding> CheckDmaPremapExhausted(const TraceFacts& facts);
// comm.memory_copy: "Megascale: Memory Copy" events during network receives.
std::optional<Finding> CheckMemoryCopy(const TraceFacts& facts);
// comm.low_collective_slack: a large share of collectives with near-zero slack.
std::optional<Finding> CheckLowCollectiveSlack(const TraceFacts& facts);
// comm.bandwidth_bound: long recv-done waits on a busy network (XProf), or
// NCCL kernels for a large share of the step (torch.profiler).
std::optional<Finding> CheckBandwidthBound(const TraceFacts& facts);
// comm.rpc_latency: RPC latency constantly high or spiking.
std::optional<Finding> CheckRpcLatency(const TraceFacts& facts);
// comm.tcp_config: collected TCP sysctls outside the recommended ranges.
std::optional<Finding> CheckTcpConfig(const TraceFacts& facts);
// comm.slow_link: (source, destination) pairs whose latency is an outlier.
std::optional<Finding> CheckSlowLink(const TraceFacts& facts);

// All of the above, in code order.
std::vector<Finding> TraceRuleFindings(const TraceFacts& facts);

}  // namespace casefile::comm
