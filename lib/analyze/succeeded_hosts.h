// The hosts whose launcher reported that its workers finished (torchrun's
// "worker group successfully finished" / "WorkerState.SUCCEEDED":
// dist_events of kind launcher_success). An error a process of such a host
// printed before its agent said so, in the same log, did not end the run
// there: a NCCL warning at teardown, a traceback the program caught, an
// attempt that an elastic restart recovered. Shared by the runtime and comm
// analyzers.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/finding.h"
#include "index/index_reader.h"

namespace casefile {

struct LauncherSuccesses {
  std::vector<std::string> hosts;  // the row's host, else its file's; sorted, each once
  // Per file (its path in the bundle), the last line that reports success.
  std::map<std::string, int64_t> last_line;
};

LauncherSuccesses LoadLauncherSuccesses(const IndexReader& index);

// True when `host` (or its short form: "node-1" for "node-1.cluster") is one
// of `s.hosts`.
bool HostSucceeded(const LauncherSuccesses& s, std::string_view host);

// Makes an error a warning and says why, when the finding names culprits,
// every one with a host that succeeded, and every line it cites comes before
// a success report in the same file, or at most 16 lines after it (the
// agent's exit barrier). A success of an earlier step of the job (a
// preprocessing torchrun) says nothing of a later failure.
void SoftenIfHostsSucceeded(Finding& f, const LauncherSuccesses& s);

}  // namespace casefile
