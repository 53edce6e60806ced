// The trace half of the comm analyzer: loads the facts once and runs every
// rule (comm_trace_checks.h).
#include "analyze/analyzers/comm/comm_trace_rules.h"

#include <utility>

#include "analyze/analyzers/comm/comm_trace_checks.h"
#include "analyze/analyzers/comm/comm_trace_inputs.h"

namespace casefile::comm {

std::vector<Finding> TraceRuleFindings(const TraceFacts& facts) {
  std::vector<Finding> out;
  for (auto rule : {CheckDmaPremapExhausted, CheckMemoryCopy, CheckLowCollectiveSlack,
                    CheckBandwidthBound, CheckRpcLatency, CheckTcpConfig, CheckSlowLink}) {
    if (std::optional<Finding> f = rule(facts)) out.push_back(std::move(*f));
  }
  return out;
}

std::vector<Finding> RunTraceRules(AnalysisContext& ctx) {
  TraceFacts facts;
  LoadTraceFacts(ctx.index(), ctx.files(), facts);
  facts.evidence = [&ctx](int64_t file_id, int64_t line_no, const std::string& text) {
    return ctx.MakeEvidence(file_id, line_no, text);
  };
  return TraceRuleFindings(facts);
}

}  // namespace casefile::comm
