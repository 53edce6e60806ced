// Puts the two halves of the hang analyzer together: the Megascale (MXLA)
// findings of hang_findings.h and the cross-rank rules (collective timeouts
// and mismatches, lost JAX tasks, HLO across hosts, step stragglers, MXLA
// program progress). One finding per code; where both halves speak of the
// same code, the cross-rank evidence joins the Megascale finding.
#pragma once

#include <vector>

#include "analyze/analyzers/hang/dist_common.h"

namespace casefile::hang {

struct MxlaOutcome {
  std::vector<Finding> findings;  // BuildHangFindings' result
  bool any_digest = false;        // a coordinator digest was read (else a
                                  // hang.unknown there is the report-only form)
};

// Findings are not yet normalized.
std::vector<Finding> CombineHangFindings(MxlaOutcome mxla, const DistContext& ctx);

}  // namespace casefile::hang
