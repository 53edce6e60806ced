// The hosts whose launcher reported that its workers finished (torchrun's
// "worker group successfully finished" / "WorkerState.SUCCEEDED":
// dist_events of kind launcher_success). An error a process of such a host
// printed before its agent said so did not end the run there: a NCCL
// warning at teardown, a traceback the program caught, an attempt that an
// elastic restart recovered. Shared by the runtime and comm analyzers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analyze/finding.h"
#include "index/index_reader.h"

namespace casefile {

// The hosts (the row's, else its file's), sorted, each once.
std::vector<std::string> LoadSucceededHosts(const IndexReader& index);

// True when `host` (or its short form: "node-1" for "node-1.cluster") is one
// of `hosts`.
bool HostSucceeded(const std::vector<std::string>& hosts, std::string_view host);

// True when the finding names culprits, every one with a host, and every
// host succeeded.
bool AllCulpritHostsSucceeded(const Finding& f, const std::vector<std::string>& hosts);

// Makes an error a warning and says why, when AllCulpritHostsSucceeded.
void SoftenIfHostsSucceeded(Finding& f, const std::vector<std::string>& hosts);

}  // namespace casefile
