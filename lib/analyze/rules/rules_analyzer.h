// The one "rules" analyzer: runs every rule of the packs it was built with
// in one pass over the lines of the files any rule reads, then applies the
// conditions (min_count, min_hosts, then absent_if) and emits one finding
// per rule that fired.
#pragma once

#include <memory>
#include <vector>

#include "analyze/analyzer.h"
#include "analyze/rules/rule_matcher.h"
#include "analyze/rules/rule_pack.h"

namespace casefile::rules {

inline constexpr const char* kRulesAnalyzerName = "rules";
// Culprits named per finding; a signature on hundreds of hosts names the
// first ones in sort order (the summary's {count} and {hosts} say more).
inline constexpr size_t kMaxCulprits = 32;

class RulesAnalyzer : public Analyzer {
 public:
  explicit RulesAnalyzer(std::vector<std::shared_ptr<const RulePack>> packs);
  const AnalyzerInfo& info() const override { return info_; }
  bool RunsOnAnyThread() const override { return true; }
  std::unique_ptr<LineScan> MakeLineScan(const AnalysisContext& ctx) const override;
  void Run(AnalysisContext& ctx) const override;
  const RuleMatcher& matcher() const { return matcher_; }

 private:
  AnalyzerInfo info_;
  RuleMatcher matcher_;
};

// The analyzer's version for a set of packs: a digest of their names and
// texts, so stored findings are never reused across a change of packs.
std::string RulesVersion(const std::vector<std::shared_ptr<const RulePack>>& packs);

}  // namespace casefile::rules
