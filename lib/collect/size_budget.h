// --max-bytes: which files to cut, and how much of each to keep, so that the
// packed (uncompressed) bytes fit. Logs and system text are cut from the
// front, keeping their last part where failures are written; every other
// file (configs, version outputs, HLO dumps, traces, binaries) is kept whole
// or left out.
//
// The rule: one cap C is found by water-filling, the largest C such that
// every file keeping min(size, C) fits, as if every file could be cut.
//  1. Files that cannot be cut and are larger than C are left out.
//  2. C is found again over the files that remain; each cuttable file keeps
//     min(size, C). Files of step 1 that stayed are at most the first C, so
//     they still fit whole.
// So small files (configs, version outputs) are kept, large dumps go first,
// and only the largest logs are cut, to equal amounts. A file whose kept
// amount is 0 is left out.
#pragma once

#include <cstdint>
#include <vector>

namespace casefile::collect {

struct BudgetItem {
  uint64_t size = 0;
  bool tailable = false;
};

// The bytes to keep of each item, in the order given: its size (whole), less
// (tailed; only tailable items), or 0 (left out). The sum is <= max_bytes.
std::vector<uint64_t> PlanBudget(const std::vector<BudgetItem>& items, uint64_t max_bytes);

}  // namespace casefile::collect
