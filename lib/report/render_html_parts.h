// The sections of the analysis HTML page (render_html*.cc), one function
// each, and the page-size budget they share. Each section is built into its
// own string and checked against its share of kPageBudgetBytes, so the page
// stays under the budget whatever the report holds: lists stop early with a
// "N more" line, and a section that still ends up over its share is
// replaced by a note that names the command showing everything.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "report/report.h"

namespace casefile::html_report {

// Shares of the page budget, in bytes. Every section but the findings has a
// fixed share (sum 1,010,000); the findings get what the page has left
// after the frame (head, style, script, footer: under kFrameBudget), the
// header and the other sections as actually rendered, and kPageMargin, so
// they get at least 2,097,152 - 1,010,000 - 20,000 - 16,000 - 16,384 =
// 1,034,768 bytes (less only when many long bundle names fill the header).
inline constexpr size_t kFrameBudget = 16'000;
inline constexpr size_t kHeaderBudget = 20'000;  // bundles in the subtitle, headline
inline constexpr size_t kPageMargin = 16'384;    // kept free under kPageBudgetBytes
inline constexpr size_t kTimelineBudget = 240'000;
inline constexpr size_t kMetricsBudget = 200'000;
inline constexpr size_t kStepTimesBudget = 50'000;
inline constexpr size_t kNetworkBudget = 110'000;
inline constexpr size_t kAnalyzersBudget = 40'000;
inline constexpr size_t kIngestBudget = 60'000;
inline constexpr size_t kInventoryBudget = 50'000;
inline constexpr size_t kVersionsBudget = 190'000;
inline constexpr size_t kEnvironmentBudget = 50'000;
inline constexpr size_t kWarningsBudget = 20'000;

// List caps of the page (docs/REPORTS.md).
inline constexpr size_t kFindingsShown = 200;
inline constexpr size_t kCompactEvidence = 20;  // per finding, after the context figures
inline constexpr size_t kCulpritsShown = 20;
inline constexpr size_t kBundlesInHeader = 16;
inline constexpr size_t kHeaderBundleBytes = 160;
inline constexpr size_t kEvidenceLineBytes = 400;  // per line shown in a figure or list
inline constexpr size_t kFindingTextBytes = 2000;  // summary, recommendation
inline constexpr size_t kTitleBytes = 300;
inline constexpr size_t kCellBytes = 200;  // table cells holding bundle text
inline constexpr size_t kTracesShown = 20;
inline constexpr size_t kWarningsShown = 50;

// The bundles as command arguments: each path (else name) shell-quoted,
// space-separated; "BUNDLE" when the report names none.
std::string BundleArgs(const Report& report);
// A `casefile query BUNDLES SQL` command.
std::string QueryCommand(const Report& report, std::string_view sql);

std::string HeaderSubtitle(const Report& report);  // HTML
std::string HeadlineSection(const Report& report);
// At most kFindingsShown findings within `budget` bytes; the first ones in
// full, later ones shorter when the budget is tight, the rest counted in a
// "more" line.
std::string FindingsSection(const Report& report, size_t budget);
std::string TimelineSection(const Report& report);
std::string MetricsSection(const Report& report);
std::string StepTimesSection(const Report& report);
std::string NetworkHtmlSection(const Report& report);
std::string AnalyzersSection(const Report& report);
std::string IngestSection(const Report& report);
std::string InventorySection(const Report& report);
std::string VersionsSection(const Report& report);
std::string EnvironmentSection(const Report& report);
std::string WarningsSection(const Report& report);  // "" when no warnings

// `section` when it fits in `budget` bytes, else the same section (id and
// heading) holding only a note and the command that shows everything.
std::string WithinBudget(std::string section, size_t budget, std::string_view id,
                         std::string_view heading, const Report& report);

}  // namespace casefile::html_report
