// PyTorch collective hangs read from the ranks' own words (docs/FINDINGS.md,
// section hang): the ProcessGroupNCCL watchdog's timeouts and progress
// lines, crashes and launcher reports (hang.collective_timeout, with the
// rank that failed first, is behind, or never arrived), ranks that issued
// different collectives at one sequence number (hang.collective_mismatch),
// and the same two questions asked of flight-recorder dumps.
#pragma once

#include <vector>

#include "analyze/analyzers/hang/dist_common.h"

namespace casefile::hang {

// Waiting ranks cited per finding (their first timeout line, lowest ranks first).
inline constexpr size_t kMaxWaitingCited = 8;
// Lines cited for the sides of a mismatch.
inline constexpr size_t kMaxSideLinesCited = 8;
// Culprits whose own lines are cited.
inline constexpr size_t kMaxCulpritsCited = 8;

// At most one finding: hang.collective_mismatch when ranks disagree (the
// timeouts then become its evidence), else hang.collective_timeout when a
// watchdog timeout was logged or the flight recorder shows missing ranks, or,
// with neither, the heartbeat monitor reports ranks whose watchdog got stuck.
std::vector<Finding> CollectiveFindings(const DistContext& ctx);

// True when a crash / error / launcher report is a consequence of a hang or
// of the launcher tearing the job down: its detail names a consequence
// (failure_markers.h), or the launcher reports exit code -15.
bool IsHangConsequence(const DistEvent& e);

}  // namespace casefile::hang
