// The rules of the build analyzer (docs/FINDINGS.md, section "build"), each
// a function of the facts so that tests can build the facts by hand.
#pragma once

#include <optional>
#include <vector>

#include "analyze/analyzers/build/build_inputs.h"
#include "analyze/finding.h"

namespace casefile::build {

// build.cuda_mismatch: torch built for one CUDA release, the system nvcc of
// the same host another; or DeepSpeed's / torch's own mismatch message.
std::optional<Finding> BuildCudaMismatch(const BuildFacts& facts);
// build.multiple_toolkits: PATH, LD_LIBRARY_PATH and CUDA_HOME of one host
// point at different CUDA toolkits.
std::optional<Finding> BuildMultipleToolkits(const BuildFacts& facts);
// build.compiler_unsupported: a host gcc newer than its nvcc accepts, or
// host_config.h's "unsupported GNU version" error.
std::optional<Finding> BuildCompilerUnsupported(const BuildFacts& facts);
// build.arch_mismatch: TORCH_CUDA_ARCH_LIST not covering a GPU, torch's
// capability warning, nvcc's unsupported architecture, "no kernel image".
std::optional<Finding> BuildArchMismatch(const BuildFacts& facts);
// build.extension_failed: a failed extension build, with its first compiler
// error.
std::optional<Finding> BuildExtensionFailed(const BuildFacts& facts);
// build.driver_too_old: the runtime's refusal of the GPU driver, or a driver
// whose CUDA major is older than the framework's.
std::optional<Finding> BuildDriverTooOld(const BuildFacts& facts);
// build.load_failed: a compiled library does not load (undefined symbol,
// missing shared object, C++ runtime too old).
std::optional<Finding> BuildLoadFailed(const BuildFacts& facts);
// build.version_skew: hosts of one job on different versions.
std::optional<Finding> BuildVersionSkew(const BuildFacts& facts);

// All of the above, in that order.
std::vector<Finding> BuildBuildFindings(const BuildFacts& facts);

// Hosts or cases cited per finding.
inline constexpr size_t kMaxCited = 8;
// The lines before a build failure searched for its compiler error.
inline constexpr int64_t kCompilerErrorWindow = 50'000;
// Failure lines of one build (ninja's stop, the CalledProcessError, the
// RuntimeError) are at most this far apart.
inline constexpr int64_t kOneBuildLines = 400;

}  // namespace casefile::build
