// The `runtime` analyzer: why processes of a run died. It reads the failure
// rows ingest put into dist_events (tracebacks, CUDA and NCCL errors,
// launcher reports) and scans lines for the kernel's messages (OOM killer,
// NVIDIA Xid), and names hosts out of memory, ranks out of GPU memory,
// CUDA faults, and the first failure of the run (docs/FINDINGS.md, section
// "runtime").
#pragma once

#include <memory>

#include "analyze/analyzer.h"

namespace casefile {

std::unique_ptr<Analyzer> MakeRuntimeAnalyzer();

}  // namespace casefile
