#include "analyze/analyzers/runtime/runtime_rules.h"

#include "analyze/succeeded_hosts.h"

namespace casefile::runtime {

std::vector<Finding> BuildRuntimeFindings(const RuntimeFacts& facts) {
  std::vector<Finding> out;
  for (auto* build : {&BuildOomKilled, &BuildCudaOom, &BuildDeviceOom, &BuildCudaError}) {
    if (auto f = build(facts)) out.push_back(std::move(*f));
  }
  if (auto f = BuildFirstFailure(facts, !out.empty())) {
    // A traceback the program printed and survived (its host's workers
    // finished): where to look, not what ended the run.
    SoftenIfHostsSucceeded(*f, facts.succeeded);
    out.push_back(std::move(*f));
  }
  return out;
}

}  // namespace casefile::runtime
