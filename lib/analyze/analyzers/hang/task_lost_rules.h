// A task of a multi-host JAX job died or left, and the others stopped: the
// coordination service's messages (missed heartbeats, a task unhealthy or
// disconnected, barrier timeouts, "Terminating process because the JAX
// distributed service detected fatal errors") name it (hang.task_lost).
#pragma once

#include <vector>

#include "analyze/analyzers/hang/dist_common.h"

namespace casefile::hang {

// Lines naming the lost task that are cited.
inline constexpr size_t kMaxTaskLinesCited = 8;

// The culprit's task as reported: "jax_worker/<n>", the coordination
// service's job name for jax.distributed with the task id.
std::string JaxTaskName(int64_t task);

// At most one hang.task_lost finding.
std::vector<Finding> TaskLostFindings(const DistContext& ctx);

}  // namespace casefile::hang
