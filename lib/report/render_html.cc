// The analysis report as one self-contained HTML page (docs/REPORTS.md): the
// frame from html/html_page.h, then the sections of render_html_parts.h in
// the contract's order, each within its share of the page budget.
#include "report/html/html_page.h"
#include "report/html/html_text.h"
#include "report/render_html_parts.h"
#include "report/report.h"

namespace casefile {

std::string RenderHtml(const Report& report) {
  using namespace html_report;
  // Every section but the findings first: the findings get what is left of
  // the page budget (render_html_parts.h).
  const std::string begin = html::PageBeginRaw("casefile report", HeaderSubtitle(report));
  const std::string headline =
      WithinBudget(HeadlineSection(report), kHeaderBudget, "headline", "Headline", report);
  std::string rest;
  rest += WithinBudget(TimelineSection(report), kTimelineBudget, "timeline", "Timeline", report);
  rest +=
      WithinBudget(MetricsSection(report), kMetricsBudget, "metrics", "Training metrics", report);
  rest +=
      WithinBudget(StepTimesSection(report), kStepTimesBudget, "step-times", "Step times", report);
  rest += WithinBudget(NetworkHtmlSection(report), kNetworkBudget, "network", "Network", report);
  rest +=
      WithinBudget(AnalyzersSection(report), kAnalyzersBudget, "analyzers", "Analyzers", report);
  rest +=
      WithinBudget(IngestSection(report), kIngestBudget, "ingest-issues", "Ingest issues", report);
  rest +=
      WithinBudget(InventorySection(report), kInventoryBudget, "inventory", "Inventory", report);
  rest += WithinBudget(VersionsSection(report), kVersionsBudget, "versions", "Versions", report);
  rest += WithinBudget(EnvironmentSection(report), kEnvironmentBudget, "environment", "Environment",
                       report);
  if (!report.warnings.empty()) {
    rest += WithinBudget(WarningsSection(report), kWarningsBudget, "warnings", "Warnings", report);
  }
  const std::string end = html::PageEnd();
  const size_t used = begin.size() + headline.size() + rest.size() + end.size() + kPageMargin;
  const size_t findings_budget = html::kPageBudgetBytes > used ? html::kPageBudgetBytes - used : 0;

  std::string out;
  out.reserve(used + findings_budget);
  out += begin;
  out += headline;
  out += FindingsSection(report, findings_budget);
  out += rest;
  out += end;
  return out;
}

}  // namespace casefile
