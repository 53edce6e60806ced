#include "analyze/analyzers/comm/comm_analyzer.h"

#include <utility>

#include "analyze/analyzers/comm/comm_log_rules.h"
#include "analyze/analyzers/comm/comm_trace_rules.h"

namespace casefile {
namespace {

class CommAnalyzer : public Analyzer {
 public:
  const AnalyzerInfo& info() const override {
    static const AnalyzerInfo kInfo{
        comm::kAnalyzerName,
        "3",
        "Communication: NCCL errors, transport fallbacks, version mismatches, incomplete "
        "communicator inits, rendezvous and GPU-test failures from logs; DMA premapping, "
        "memory copies, collective slack, bandwidth, RPC latency, TCP settings and slow links "
        "from profiler traces and sysctl outputs",
        {"comm.nccl_error", "comm.transport_fallback", "comm.version_mismatch",
         "comm.init_incomplete", "comm.rendezvous_failed", "comm.gpu_test_failed",
         "comm.dma_premap_exhausted", "comm.memory_copy", "comm.low_collective_slack",
         "comm.bandwidth_bound", "comm.rpc_latency", "comm.tcp_config", "comm.slow_link"},
        {"log", "trace", "sysinfo", "version"},
    };
    return kInfo;
  }
  bool RunsOnAnyThread() const override { return true; }

  void Run(AnalysisContext& ctx) const override {
    for (Finding& f : comm::RunLogRules(ctx)) ctx.Emit(std::move(f));
    for (Finding& f : comm::RunTraceRules(ctx)) ctx.Emit(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Analyzer> MakeCommAnalyzer() { return std::make_unique<CommAnalyzer>(); }

}  // namespace casefile
