// The trace half of the comm analyzer (docs/FINDINGS.md, section "comm"):
// comm.dma_premap_exhausted, comm.memory_copy, comm.low_collective_slack,
// comm.bandwidth_bound, comm.rpc_latency, comm.slow_link from the tables the
// trace reader fills at ingest (trace_comm_stats, net_links, net_sizes,
// net_timeline, trace_marks: lib/parse/trace/comm_trace_keys.h), and
// comm.tcp_config from collected sysctl outputs (sysinfo files).
#pragma once

#include <vector>

#include "analyze/analyzer.h"

namespace casefile::comm {

// Every finding of the trace half, in code order.
std::vector<Finding> RunTraceRules(AnalysisContext& ctx);

}  // namespace casefile::comm
