#include "report/report.h"

#include <algorithm>
#include <map>

namespace casefile {

bool Report::partial() const {
  return std::any_of(bundles.begin(), bundles.end(),
                     [](const BundleRow& b) { return b.status == "partial"; });
}

Report BuildReport(const IndexReader& index, AnalysisResult analysis) {
  Report r;
  r.bundles = index.Bundles();
  std::map<int64_t, std::string> names;
  for (const auto& b : r.bundles) names[b.id] = b.name;
  r.analyzers = std::move(analysis.analyzers);
  r.findings = std::move(analysis.findings);
  for (auto& issue : index.IngestIssues()) {
    r.ingest_issues.push_back({names[issue.bundle_id], std::move(issue)});
  }
  return r;
}

}  // namespace casefile
