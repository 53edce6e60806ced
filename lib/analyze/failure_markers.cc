#include "analyze/failure_markers.h"

#include "analyze/analyzers/runtime/cuda_text.h"
#include "analyze/summary_text.h"

namespace casefile {

namespace {

// A failed build is a cause, not a consequence: torch's "Error building
// extension" (whose chain names ninja's CalledProcessError), and a
// CalledProcessError of a compiler or build tool rather than of a worker
// process a launcher started.
bool IsBuildFailure(std::string_view text) {
  if (ContainsNoCase(text, "Error building extension")) return true;
  const size_t at = text.find("CalledProcessError");
  if (at == std::string_view::npos) return false;
  const std::string_view rest = text.substr(at);
  for (std::string_view tool : {"'ninja'", "'make'", "'cmake'", "nvcc'", "gcc'", "g++'", "c++'"}) {
    if (rest.find(tool) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace

bool NamesConsequence(std::string_view error_text) {
  if (IsBuildFailure(error_text)) return false;
  // A CUDA fault is a cause even when its text also names the watchdog that
  // reported it ("Process group watchdog thread terminated with exception:
  // CUDA error: an illegal memory access was encountered").
  if (runtime::ClassifyCudaText(error_text) != runtime::CudaFault::kNone) return false;
  static const std::string_view kMarkers[] = {
      "watchdog",
      "timed out",
      "timeout",
      "DEADLINE_EXCEEDED",
      "DistBackendError",
      "communicator was aborted",
      "SIGTERM",
      "ChildFailedError",
      "Some NCCL operations",
      "SignalException",
      "KeyboardInterrupt",
      "remote process exited",
      "CalledProcessError",
  };
  for (std::string_view m : kMarkers) {
    if (ContainsNoCase(error_text, m)) return true;
  }
  // A rank that waited on another's JIT build (the extension's lock file)
  // finds no library when that build failed: the build is the cause.
  return ContainsNoCase(error_text, "torch_extensions") &&
         ContainsNoCase(error_text, "cannot open shared object file");
}

}  // namespace casefile
