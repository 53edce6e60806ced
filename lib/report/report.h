// The report: what an analysis found, which analyzers ran, and what input was
// skipped. Rendered as JSON (the documented, deterministic shape) or text.
#pragma once

#include <string>
#include <vector>

#include "analyze/runner.h"
#include "index/index_types.h"

namespace casefile {

struct ReportIngestIssue {
  std::string bundle;  // bundle display name
  IngestIssueRow row;
};

struct Report {
  std::vector<BundleRow> bundles;
  std::vector<AnalyzerStatus> analyzers;
  std::vector<Finding> findings;
  std::vector<ReportIngestIssue> ingest_issues;
  bool partial() const;  // some bundle has status "partial"
};

// Builds the report from an index and an analysis result.
Report BuildReport(const IndexReader& index, AnalysisResult analysis);

std::string RenderJson(const Report& report);
// One finding as compact JSON, as stored in the index's findings table.
std::string RenderFindingJson(const Finding& finding);
// `color`: ANSI colours (the CLI decides: TTY and no NO_COLOR).
std::string RenderText(const Report& report, bool color);

}  // namespace casefile
