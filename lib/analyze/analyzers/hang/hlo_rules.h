// HLO dumps compared across hosts, with no coordinator digest needed:
//  - the same module (name and dump stage) dumped by two or more hosts with
//    different fingerprints (hang.fingerprint_mismatch);
//  - hosts whose set of module names at a stage differs from the set most
//    hosts compiled (hang.different_module).
// The results are kept apart from findings so that the analyzer can attach
// them to a digest finding of the same code instead of emitting a second one.
#pragma once

#include <string>
#include <vector>

#include "analyze/analyzers/hang/dist_common.h"

namespace casefile::hang {

// Modules and hosts named per summary.
inline constexpr size_t kMaxHloNamed = 4;

struct HloComparison {
  std::string code;  // hang.fingerprint_mismatch or hang.different_module
  // The hosts of the minority sides; every host involved when all sides tie
  // (then `tie` is set: the dumps alone cannot tell which side is odd).
  std::vector<Culprit> culprits;
  bool tie = false;
  std::vector<Evidence> evidence;  // line 1 (the HloModule header) of one dump per side
  std::string summary;             // sentences about the dumps, standalone
};

// At most one comparison per code.
std::vector<HloComparison> CompareHloAcrossHosts(const DistContext& ctx);

// The finding for a comparison when no digest finding of its code exists.
Finding HloFinding(const HloComparison& c);

}  // namespace casefile::hang
