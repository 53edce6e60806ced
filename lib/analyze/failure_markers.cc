#include "analyze/failure_markers.h"

#include "analyze/summary_text.h"

namespace casefile {

bool NamesConsequence(std::string_view error_text) {
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
  return false;
}

}  // namespace casefile
