// The `hang` analyzer: hangs of distributed runs (docs/FINDINGS.md, section
// "hang"). Two halves: Megascale (MXLA) hangs on TPU slices, read from the
// workers' "Megascale hang detected" reports and the coordinator's
// "Megascale detects a hang" digests in the indexed log lines
// (hang_findings.h); and the cross-rank rules over the tables ingest filled
// (dist_events, flight-recorder entries, HLO modules): collective timeouts
// and mismatches, lost JAX tasks, HLO compiled differently across hosts,
// stragglers (dist_findings.h). Both name the cause and the culprit hosts
// and ranks.
#pragma once

#include <memory>

#include "analyze/analyzer.h"

namespace casefile {

std::unique_ptr<Analyzer> MakeHangAnalyzer();

}  // namespace casefile
