#include "analyze/runner.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "analyze/registry.h"
#include "common/error.h"

namespace casefile {
namespace {

// Deterministic order: most severe first, then code, then first evidence.
bool FindingBefore(const Finding& a, const Finding& b) {
  if (a.severity != b.severity) return a.severity > b.severity;
  if (a.code != b.code) return a.code < b.code;
  const Evidence* ea = a.evidence.empty() ? nullptr : &a.evidence.front();
  const Evidence* eb = b.evidence.empty() ? nullptr : &b.evidence.front();
  if (ea && eb && (*ea < *eb || *eb < *ea)) return *ea < *eb;
  return a.summary < b.summary;
}

}  // namespace

namespace {

// A fallback error (Finding::error_unless_explained) becomes info when an
// error of another analyzer names the cause; its summary says which.
void LowerExplainedFallbacks(std::vector<Finding>& findings) {
  for (Finding& f : findings) {
    if (!f.error_unless_explained || f.severity != Severity::kError) continue;
    const auto other = std::find_if(findings.begin(), findings.end(), [&](const Finding& g) {
      return g.analyzer != f.analyzer && g.severity == Severity::kError &&
             !g.error_unless_explained;
    });
    if (other == findings.end()) continue;
    f.severity = Severity::kInfo;
    f.summary += " " + other->code + " explains the run.";
  }
}

}  // namespace

AnalysisResult RunAnalyzers(const IndexReader& index, const std::vector<std::string>& names) {
  return RunAnalyzers(index, names, AllAnalyzers());
}

AnalysisResult RunAnalyzers(const IndexReader& index, const std::vector<std::string>& names,
                            const std::vector<std::unique_ptr<Analyzer>>& analyzers) {
  AnalyzerList borrowed;
  for (const auto& a : analyzers) {
    borrowed.push_back(std::shared_ptr<const Analyzer>(std::shared_ptr<const Analyzer>(), a.get()));
  }
  return RunAnalyzers(index, names, borrowed);
}

AnalysisResult RunAnalyzers(const IndexReader& index, const std::vector<std::string>& names,
                            const AnalyzerList& all) {
  std::set<std::string> wanted(names.begin(), names.end());
  for (const auto& n : wanted) {
    const bool known =
        std::any_of(all.begin(), all.end(), [&](const auto& a) { return a->info().name == n; });
    if (!known) throw Error(ErrorCode::kUnknownAnalyzer, "unknown analyzer '" + n + "'");
  }

  AnalysisContext ctx(index);
  AnalysisResult result;
  for (const auto& analyzer : all) {
    const AnalyzerInfo& info = analyzer->info();
    if (!wanted.empty() && !wanted.count(info.name)) continue;
    AnalyzerStatus status{info.name, info.version, "ran", "", 0};
    // A failing analyzer is recorded and the others still run; its partial
    // findings are discarded so a report never mixes half an analysis in.
    try {
      if (auto why = analyzer->NotApplicable(ctx)) {
        status.status = "not_applicable";
        status.reason = *why;
        result.analyzers.push_back(status);
        continue;
      }
      AnalysisContext own(index, ctx);
      analyzer->Run(own);
      auto found = own.TakeFindings();
      for (auto& f : found) {
        if (f.analyzer.empty()) f.analyzer = info.name;
        if (f.evidence.empty()) {
          throw Error(ErrorCode::kInternal,
                      "analyzer '" + info.name + "' emitted " + f.code + " without evidence");
        }
      }
      status.findings = static_cast<int64_t>(found.size());
      for (auto& f : found) result.findings.push_back(std::move(f));
    } catch (const std::exception& e) {
      status.status = "failed";
      status.reason = e.what();
    }
    result.analyzers.push_back(status);
  }
  LowerExplainedFallbacks(result.findings);
  std::sort(result.findings.begin(), result.findings.end(), FindingBefore);
  return result;
}

}  // namespace casefile
