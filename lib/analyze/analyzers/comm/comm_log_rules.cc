#include "analyze/analyzers/comm/comm_log_rules.h"

#include "analyze/analyzers/comm/comm_log_findings.h"
#include "analyze/analyzers/comm/comm_log_inputs.h"
#include "analyze/succeeded_hosts.h"

namespace casefile::comm {

std::vector<Finding> BuildCommLogFindings(const CommLogFacts& facts) {
  std::vector<Finding> out;
  for (auto rule : {BuildNcclError, BuildTransportFallback, BuildVersionMismatch,
                    BuildInitIncomplete, BuildRendezvousFailed, BuildGpuTestFailed}) {
    if (std::optional<Finding> f = rule(facts)) out.push_back(std::move(*f));
  }
  // A NCCL error or rendezvous failure on hosts whose workers finished
  // afterwards (a teardown warning, an attempt an elastic restart
  // recovered) did not end the run there.
  for (Finding& f : out) {
    if (f.code == "comm.nccl_error" || f.code == "comm.rendezvous_failed")
      SoftenIfHostsSucceeded(f, facts.succeeded);
  }
  return out;
}

std::vector<Finding> RunLogRules(AnalysisContext& ctx) {
  CommLogFacts facts;
  LoadCommLogFacts(ctx, facts);
  // Nothing of what the rules read: no work (and no line lookups).
  if (facts.procs.empty() && facts.events.empty()) return {};
  return BuildCommLogFindings(facts);
}

}  // namespace casefile::comm
