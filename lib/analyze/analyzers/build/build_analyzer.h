// The build analyzer: the environment a run was built and started in
// (docs/FINDINGS.md, section "build"): versions within a host and across
// hosts, CUDA toolkits, compilers, architectures, failed extension builds.
#pragma once

#include <memory>

#include "analyze/analyzer.h"

namespace casefile {

std::unique_ptr<Analyzer> MakeBuildAnalyzer();

}  // namespace casefile
