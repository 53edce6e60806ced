// Findings stored in an index, read back for the diff. `casefile analyze`
// (and the diff) store the findings of every run; when the run was the
// whole analyzer set of this very casefile build, the stored set is what a
// new run would compute from the same index, so the diff reads it instead
// of re-running analyzers that scan every line.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyze/finding.h"
#include "analyze/registry.h"
#include "index/index_reader.h"

namespace casefile {

// The meta key under which the provenance of the stored findings is kept.
inline constexpr const char* kFindingsProvenanceKey = "findings_provenance";

// "casefile <version>; <analyzer>:<version> ..." of every analyzer in
// `analyzers` (built-in, rules, external): findings stored by one set are
// never read back for another.
std::string FullAnalysisProvenance(const AnalyzerList& analyzers);
// The same of AllAnalyzers() now.
std::string FullAnalysisProvenance();

// The stored findings when their provenance is FullAnalysisProvenance();
// nullopt otherwise (none stored, a partial run, another casefile build) or
// when a stored finding does not parse (then the caller re-runs the
// analyzers: a stored copy is a cache, never the truth).
std::optional<std::vector<Finding>> LoadStoredFindings(const IndexReader& index);

// Parses one finding's JSON as RenderFindingJson writes it. nullopt when it
// is not that shape.
std::optional<Finding> ParseFindingJson(std::string_view json);

}  // namespace casefile
