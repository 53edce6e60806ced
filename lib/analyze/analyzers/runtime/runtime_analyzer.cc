#include "analyze/analyzers/runtime/runtime_analyzer.h"

#include <utility>

#include "analyze/analyzers/runtime/line_scan.h"
#include "analyze/analyzers/runtime/runtime_common.h"
#include "analyze/analyzers/runtime/runtime_rules.h"
#include "analyze/line_marks.h"

namespace casefile {
namespace {

class RuntimeAnalyzer : public Analyzer {
 public:
  const AnalyzerInfo& info() const override {
    static const AnalyzerInfo kInfo{
        runtime::kAnalyzerName,
        "3",
        "Why processes died: host out of memory (OOM killer), CUDA out of memory, XLA device "
        "(TPU HBM, GPU) out of memory, CUDA faults (illegal memory access, device-side assert, "
        "Xid), and the first failure of the run",
        {"runtime.oom_killed", "runtime.cuda_oom", "runtime.device_oom", "runtime.cuda_error",
         "runtime.first_failure"},
        {"log", "sysinfo"},
    };
    return kInfo;
  }
  bool RunsOnAnyThread() const override { return true; }

  // The failure rows are loaded first: the line scan estimates the time of
  // those logged without one from the lines around them.
  std::unique_ptr<LineScan> MakeLineScan(const AnalysisContext& ctx) const override {
    runtime::RuntimeFacts facts;
    runtime::LoadFailureRows(ctx.index(), ctx.files(), facts);
    const uint32_t needed = kMarkKernel | kMarkAssert | kMarkNewPid;
    const bool marked = (TrustedMarks(ctx.index(), "") & needed) == needed;
    return std::make_unique<runtime::RuntimeLineScan>(std::move(facts), marked);
  }

  void Run(AnalysisContext& ctx) const override {
    const auto scan = FilledLineScan<runtime::RuntimeLineScan>(ctx, *this);
    scan->MergeInto(ctx.files());
    runtime::RuntimeFacts& facts = scan->facts();
    facts.ranks = &ctx.rank_hosts();
    // Rows under torchrun's "[defaultN]:" name only their local rank.
    for (runtime::FailureRow& row : facts.rows) {
      if (!row.rank && row.local_rank)
        row.rank = facts.ranks->GlobalOfLocal(row.host, *row.local_rank);
    }
    facts.line = [&ctx](int64_t file_id, int64_t line_no) {
      return ctx.MakeEvidence(file_id, line_no,
                              ctx.index().LineText(file_id, line_no).value_or(""));
    };
    for (Finding& f : runtime::BuildRuntimeFindings(facts)) ctx.Emit(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Analyzer> MakeRuntimeAnalyzer() { return std::make_unique<RuntimeAnalyzer>(); }

}  // namespace casefile
