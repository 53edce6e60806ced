// The comm analyzer: communication set-up and performance (docs/FINDINGS.md,
// section "comm"). Two halves that share nothing but the report:
//  - from logs (comm_log_rules.h): NCCL errors, transport fallbacks, version
//    mismatches between ranks, communicator inits that never completed,
//    rendezvous failures, the distributed GPU test;
//  - from profiler traces and sysctl outputs (comm_trace_rules.h): the MXLA
//    performance checks and the network analysis.
#pragma once

#include <memory>

#include "analyze/analyzer.h"

namespace casefile {

std::unique_ptr<Analyzer> MakeCommAnalyzer();

}  // namespace casefile
