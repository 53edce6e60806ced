// The log half of the comm analyzer (docs/FINDINGS.md, section "comm"):
// comm.nccl_error, comm.transport_fallback, comm.version_mismatch,
// comm.init_incomplete, comm.rendezvous_failed, comm.gpu_test_failed. Reads
// nccl_ranks, dist_events (nccl_warn, collective_error, rendezvous_error,
// gpu_test, store_timeout), configs (NCCL_* environment) and sysinfo lines
// (ibstat / ibv_devinfo: InfiniBand devices present).
#pragma once

#include <vector>

#include "analyze/analyzer.h"

namespace casefile::comm {

inline constexpr const char* kAnalyzerName = "comm";

// Every finding of the log half, in code order.
std::vector<Finding> RunLogRules(AnalysisContext& ctx);

}  // namespace casefile::comm
