// The sections of a diff, one function each (section_<name>.cc). Each reads
// only the two indexes (through DiffSide), returns its items with their
// scores and evidence, and works on an index that lacks its tables (an
// older or a log-only bundle): then it returns nothing. Scores and kinds of
// each section are documented in docs/DIFF.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "diff/diff_types.h"

namespace casefile::diff {

// Findings matched by code and culprits: kind new (only in bad), resolved
// (only in good), persisting (both).
std::vector<DiffItem> DiffFindings(const DiffSide& good, const DiffSide& bad);

// Components whose version changed, appeared or disappeared (per host where
// the hosts of one side disagree); key components first.
std::vector<DiffItem> DiffVersions(const DiffSide& good, const DiffSide& bad);

// Config keys (DeepSpeed/HF/model configs, environment variables NCCL_*,
// XLA_*, TORCH_*..., command lines) added, removed, changed.
std::vector<DiffItem> DiffConfigs(const DiffSide& good, const DiffSide& bad);

// Log templates: kind new (only in bad), vanished (only in good), changed
// (rate per line moved by the documented factor). Only the `keep` most
// suspicious of each kind are built (a log of ever-new shapes has 10^5
// templates); `omitted`, when given, counts the others per kind.
struct TemplateOmitted {
  int64_t fresh = 0;  // kind new
  int64_t vanished = 0;
  int64_t changed = 0;
};
std::vector<DiffItem> DiffTemplates(const DiffSide& good, const DiffSide& bad,
                                    size_t keep = SIZE_MAX, TemplateOmitted* omitted = nullptr);

// Loss and step time at matching steps (first divergence step, median and
// p90 step time), throughput.
std::vector<DiffItem> DiffMetrics(const DiffSide& good, const DiffSide& bad);

// HLO modules whose fingerprint changed, added or removed.
std::vector<DiffItem> DiffHlo(const DiffSide& good, const DiffSide& bad);

// Traces: top operations by total time, the communication share of step
// time, side by side.
std::vector<DiffItem> DiffTraces(const DiffSide& good, const DiffSide& bad);

}  // namespace casefile::diff
