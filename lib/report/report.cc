#include "report/report.h"

#include <algorithm>
#include <map>

namespace casefile {

bool Report::partial() const {
  return std::any_of(bundles.begin(), bundles.end(),
                     [](const BundleRow& b) { return b.status != "complete"; });
}

Report BuildReport(const IndexReader& index, AnalysisResult analysis, ReportParts parts) {
  Report r;
  r.bundles = index.Bundles();
  std::map<int64_t, std::string> names;
  for (const auto& b : r.bundles) names[b.id] = b.name;
  r.analyzers = std::move(analysis.analyzers);
  r.findings = std::move(analysis.findings);
  index.Query("SELECT kind, count(*) FROM ingest_issues GROUP BY kind ORDER BY kind",
              [&](const QueryRow& row) {
                r.ingest_issue_counts[row.values[0].value_or("")] =
                    std::stoll(row.values[1].value_or("0"));
                return true;
              });
  index.Query(
      "SELECT bundle_id, path, offset, kind, message FROM (SELECT *, row_number() OVER "
      "(PARTITION BY kind ORDER BY rowid) AS n FROM ingest_issues) WHERE n <= " +
          std::to_string(kReportIssuesPerKind) + " ORDER BY rowid",
      [&](const QueryRow& row) {
        IngestIssueRow issue;
        issue.bundle_id = std::stoll(row.values[0].value_or("0"));
        issue.path = row.values[1].value_or("");
        issue.offset = std::stoll(row.values[2].value_or("0"));
        issue.kind = row.values[3].value_or("");
        issue.message = row.values[4].value_or("");
        r.ingest_issues.push_back({names[issue.bundle_id], std::move(issue)});
        return true;
      });
  r.network = LoadNetworkSection(index);
  if (parts == ReportParts::kAll) {
    r.context = LoadReportContext(index, r.findings);
    r.warnings.insert(r.warnings.end(), r.context.warnings.begin(), r.context.warnings.end());
  }
  return r;
}

}  // namespace casefile
