// Which failures are consequences of another failure, shared by every
// analyzer that looks for the failure that came first (hang's "failed first",
// runtime's first failure), so that they never disagree on it.
#pragma once

#include <optional>
#include <string_view>

namespace casefile {

// An error text that says it was caused by something else: collective
// timeouts and the watchdog, an aborted communicator, the launcher's
// SIGTERM, a peer that exited, an interrupted or failed child process. A
// CUDA fault (runtime::ClassifyCudaText) is never a consequence, even when
// the watchdog that caught it is named in the same text. A
// failed build (torch's "Error building extension", a CalledProcessError of
// ninja, make, cmake or a compiler) is never a consequence; a JIT extension
// that cannot be loaded from the torch_extensions cache (its build failed
// on another rank) is.
bool NamesConsequence(std::string_view error_text);

// A launcher exit code that is the launcher's own termination of the
// survivors (-15: SIGTERM), not a failure of that process.
inline bool IsTerminationExit(std::optional<double> exit_code) {
  return exit_code && static_cast<long long>(*exit_code) == -15;
}

}  // namespace casefile
