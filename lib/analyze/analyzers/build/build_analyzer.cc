#include "analyze/analyzers/build/build_analyzer.h"

#include <utility>

#include "analyze/analyzers/build/build_rules.h"
#include "analyze/analyzers/build/compiler_errors.h"

namespace casefile {
namespace {

class BuildAnalyzer : public Analyzer {
 public:
  const AnalyzerInfo& info() const override {
    static const AnalyzerInfo kInfo{
        build::kAnalyzerName,
        "3",
        "The environment: torch's CUDA against the system toolkit, several toolkits, host "
        "compilers nvcc refuses, GPU architectures missing from the build, failed extension "
        "builds, GPU drivers too old for the CUDA runtime, compiled libraries that do not "
        "load, and hosts on different versions",
        {"build.cuda_mismatch", "build.multiple_toolkits", "build.compiler_unsupported",
         "build.arch_mismatch", "build.extension_failed", "build.driver_too_old",
         "build.load_failed", "build.version_skew"},
        {"version", "config", "log"},
    };
    return kInfo;
  }
  bool RunsOnAnyThread() const override { return true; }

  void Run(AnalysisContext& ctx) const override {
    build::BuildFacts facts;
    build::LoadBuildFacts(ctx.index(), ctx.files(), facts);
    for (build::BuildErrorRow& row : facts.errors) {
      if (!row.rank && row.local_rank)
        row.rank = ctx.rank_hosts().GlobalOfLocal(row.host, *row.local_rank);
    }
    facts.line = [&ctx](int64_t file_id, int64_t line_no) {
      return ctx.MakeEvidence(file_id, line_no,
                              ctx.index().LineText(file_id, line_no).value_or(""));
    };
    facts.first_compiler_error = [&ctx](int64_t file_id, int64_t from, int64_t to,
                                        const std::string& host) {
      std::optional<build::CompilerErrorLine> found;
      size_t count = 0;
      ctx.index().ScanLines(file_id, [&](const LineRecord& rec) {
        if (rec.line_no < from) return true;
        if (rec.line_no > to) return false;
        // One file may hold several hosts' builds (pdsh, srun --label).
        if (!host.empty() && !rec.host.empty() && rec.host != host) return true;
        if (build::IsCompilerErrorLine(rec.message())) {
          ++count;
          // The summary quotes the message; the evidence cites the whole line.
          if (!found) found = build::CompilerErrorLine{rec.line_no, std::string(rec.message()), 0};
        }
        return true;
      });
      if (found) found->count = count;
      return found;
    };
    for (Finding& f : build::BuildBuildFindings(facts)) ctx.Emit(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Analyzer> MakeBuildAnalyzer() { return std::make_unique<BuildAnalyzer>(); }

}  // namespace casefile
