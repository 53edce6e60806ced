// Runs a diff end to end: each side's inputs are indexed (or their index
// reused) as one Session each, their findings come from the analyzers (or,
// when the index holds findings stored by this casefile version for the
// whole analyzer set, from there), then lib/diff compares the two.
#pragma once

#include <string>
#include <vector>

#include "diff/diff.h"
#include "engine/session.h"

namespace casefile {

struct DiffRunOptions {
  // Index file of each side; empty: DefaultIndexPath of the side's inputs
  // (in index_dir when that is set).
  std::string good_index_path;
  std::string bad_index_path;
  std::string index_dir;
  bool reindex = false;
  Limits limits;
};

// Diffs two sessions (each indexed first when it is not yet). The two sides
// are indexed and analysed on two threads (one after the other when they
// share an index file); `progress` is called from one thread at a time with
// the bytes of both sides summed. The findings of each side are stored in
// its index as `casefile analyze` stores them, unless `store_findings` is
// false. A side's error is rethrown (the other side stops early).
diff::DiffReport DiffSessions(Session& good, Session& bad, bool store_findings,
                              const ProgressFn& progress);

// Throws as Session (kArgument for an empty side, kNotFound for a missing
// input, kCorrupt for an unreadable one). A side read only in part still
// diffs; the report's warnings say which side and why.
diff::DiffReport RunDiff(const std::vector<std::string>& good_inputs,
                         const std::vector<std::string>& bad_inputs, const DiffRunOptions& options,
                         const ProgressFn& progress);

}  // namespace casefile
