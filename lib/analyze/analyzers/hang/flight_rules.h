// Reads the flight-recorder dumps (one per rank) the way PyTorch's fr_trace
// does, on the entries of collectives (not p2p): entries of one process
// group are matched across ranks by collective sequence id, which gives
//  - the first sequence id where ranks disagree on the op, the input dtypes
//    or the input sizes (a mismatch), and
//  - ranks that never reached the sequence id most ranks of their group
//    reached ("Not all ranks joining collective": missing ranks).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyze/analyzers/hang/dist_inputs.h"

namespace casefile::hang {

struct FrSide {
  std::string op;
  std::string input_sizes;   // "" when sizes were not compared
  std::string input_dtypes;  // "" when dtypes were not compared
  std::vector<int64_t> ranks;
  std::vector<const FrEntry*> entries;  // one per rank, ascending rank
};

struct FrMismatch {
  std::string pg;  // pg_id as the dumps name it
  int64_t seq = 0;
  std::vector<FrSide> sides;      // most ranks first
  std::vector<int64_t> culprits;  // ranks of the minority sides; every rank on a tie
};

struct FrMissing {
  std::string pg;
  int64_t reached = 0;      // the sequence id most ranks of the group reached
  std::string op;           // the op at `reached`
  std::size_t waiting = 0;  // ranks that reached it
  // Ranks of the group behind `reached`, with the last sequence id in their
  // dump; -1 for a member with no entry of this group at all.
  std::vector<std::pair<int64_t, int64_t>> missing;
  std::vector<const FrEntry*> waiting_entries;  // the entry at `reached`, lowest ranks first
  std::vector<const FrEntry*> missing_entries;  // each missing rank's last entry, when it has one
};

struct FrFacts {
  std::optional<FrMismatch> mismatch;
  std::vector<FrMissing> missing;  // one per group with missing ranks
};

// Ops whose input sizes legitimately differ across ranks (all-to-all,
// scatter and gather families, all_gather and reduce_scatter included).
bool FrSizesMayDiffer(const std::string& op);

FrFacts AnalyzeFlightRecorder(const FrData& fr);

// The member ranks of a pg_config "ranks" text ("[0, 1, 2]"), sorted and
// unique; empty when it names none.
std::vector<int64_t> ParseRankList(const std::string& text);

}  // namespace casefile::hang
