// The `hang` analyzer: Megascale (MXLA) hangs on TPU slices. It reads the
// workers' "Megascale hang detected" reports and the coordinator's "Megascale
// detects a hang" digests from the indexed log lines and names the cause and
// the culprit hosts (docs/FINDINGS.md, section "hang").
#pragma once

#include <memory>

#include "analyze/analyzer.h"

namespace casefile {

std::unique_ptr<Analyzer> MakeHangAnalyzer();

}  // namespace casefile
