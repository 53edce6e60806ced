// The report: what an analysis found, which analyzers ran, and what input was
// skipped. Rendered as JSON (the documented, deterministic shape) or text.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "analyze/runner.h"
#include "index/index_types.h"
#include "report/network_section.h"
#include "report/report_context.h"

namespace casefile {

struct ReportIngestIssue {
  std::string bundle;  // bundle display name
  IngestIssueRow row;
};

struct Report {
  std::vector<BundleRow> bundles;
  std::vector<AnalyzerStatus> analyzers;
  std::vector<Finding> findings;
  // At most kReportIssuesPerKind issues of each kind; the counts are complete
  // (the index holds every issue: SELECT * FROM ingest_issues).
  std::vector<ReportIngestIssue> ingest_issues;
  std::map<std::string, int64_t> ingest_issue_counts;  // kind -> total
  std::vector<std::string> warnings;  // about the analysis itself, e.g. findings not stored
  NetworkSection network;             // communication tables of the traces
  ReportContext context;              // what the HTML and markdown reports show besides
  bool partial() const;               // some bundle has status "partial"
};

// How many ingest issues of one kind a report lists; a bundle of a million
// hostile entries must not make a million-line report.
inline constexpr int kReportIssuesPerKind = 20;

// What a report holds besides the analysis: everything, or not the context
// (the part only the HTML and markdown renderers show, which reads the
// step times and curves again) for a caller that keeps only the findings.
enum class ReportParts { kAll, kNoContext };

// Builds the report from an index and an analysis result.
Report BuildReport(const IndexReader& index, AnalysisResult analysis,
                   ReportParts parts = ReportParts::kAll);

std::string RenderJson(const Report& report);
// One finding as compact JSON, as stored in the index's findings table.
std::string RenderFindingJson(const Finding& finding);
// `color`: ANSI colours (the CLI decides: TTY and no NO_COLOR).
std::string RenderText(const Report& report, bool color);
// One self-contained HTML page (docs/REPORTS.md): inline CSS, inline SVG
// charts, a little inline JS for filtering; no network access at all.
std::string RenderHtml(const Report& report);
// A compact markdown summary to paste into an issue tracker.
std::string RenderMarkdown(const Report& report);

}  // namespace casefile
