#include "analyze/analyzers/build/build_rules.h"

namespace casefile::build {

std::vector<Finding> BuildBuildFindings(const BuildFacts& facts) {
  std::vector<Finding> out;
  for (auto rule : {BuildCudaMismatch, BuildMultipleToolkits, BuildCompilerUnsupported,
                    BuildArchMismatch, BuildExtensionFailed, BuildDriverTooOld, BuildLoadFailed,
                    BuildVersionSkew}) {
    if (std::optional<Finding> f = rule(facts)) out.push_back(std::move(*f));
  }
  return out;
}

}  // namespace casefile::build
