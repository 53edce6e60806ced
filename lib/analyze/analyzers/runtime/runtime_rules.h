// The rules of the runtime analyzer (docs/FINDINGS.md, section "runtime"),
// each a function of the facts so that tests can build the facts by hand.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "analyze/analyzers/runtime/runtime_inputs.h"
#include "analyze/finding.h"

namespace casefile::runtime {

// runtime.oom_killed: kernel / slurmstepd OOM kills (matched to a rank by
// PID, else by host and time), and ranks that died of SIGKILL without a
// traceback (probable).
std::optional<Finding> BuildOomKilled(const RuntimeFacts& facts);
// runtime.cuda_oom: CUDA out-of-memory errors, one per rank, with their
// numbers.
std::optional<Finding> BuildCudaOom(const RuntimeFacts& facts);
// runtime.device_oom: XLA's device out-of-memory errors (JAX on TPU or GPU),
// one per rank (per host and file without one).
std::optional<Finding> BuildDeviceOom(const RuntimeFacts& facts);
// XLA's words for a device out of memory: "RESOURCE_EXHAUSTED: Out of
// memory while trying to allocate N bytes" (and the allocators' other
// wordings, device_oom.cc), and the compiler's "Ran out of memory in memory
// space hbm" (IsXlaCompileOom).
bool IsXlaDeviceOom(std::string_view text);
bool IsXlaCompileOom(std::string_view text);
// runtime.cuda_error: sticky CUDA faults (illegal memory access and its
// family) and NVIDIA Xid lines.
std::optional<Finding> BuildCudaError(const RuntimeFacts& facts);
// runtime.first_failure: the earliest failure of any rank that is not a
// consequence; `explained` when another runtime finding fired (then info).
std::optional<Finding> BuildFirstFailure(const RuntimeFacts& facts, bool explained);

// All of the above, in that order.
std::vector<Finding> BuildRuntimeFindings(const RuntimeFacts& facts);

// A kernel event's time is used when both it and the logs have one: an
// event further than this from the logs' span is from another run (the
// margin is wide because a dmesg --time-format iso stamp carries its zone
// while a Python log's local time is read as UTC).
inline constexpr int64_t kKernelWindowUs = 15LL * 3600 * 1'000'000;
// A kill of a process that does not look like the training (not python,
// torchrun, ...) counts only this close to the logs' span.
inline constexpr int64_t kForeignKillWindowUs = 10LL * 60 * 1'000'000;
// ... and not when the logs go on for longer than this after it: the run
// outlived the kill of a process that was not its own (a CI agent's java in
// system.slice).
inline constexpr int64_t kRunWentOnUs = 2LL * 60 * 1'000'000;
// Cited cases per finding.
inline constexpr size_t kMaxCitedCases = 8;

bool InKernelWindow(const RuntimeFacts& facts, int64_t ts_us, int64_t margin_us);

}  // namespace casefile::runtime
