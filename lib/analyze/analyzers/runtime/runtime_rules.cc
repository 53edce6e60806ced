#include "analyze/analyzers/runtime/runtime_rules.h"

namespace casefile::runtime {

std::vector<Finding> BuildRuntimeFindings(const RuntimeFacts& facts) {
  std::vector<Finding> out;
  for (auto* build : {&BuildOomKilled, &BuildCudaOom, &BuildDeviceOom, &BuildCudaError}) {
    if (auto f = build(facts)) out.push_back(std::move(*f));
  }
  if (auto f = BuildFirstFailure(facts, !out.empty())) out.push_back(std::move(*f));
  return out;
}

}  // namespace casefile::runtime
