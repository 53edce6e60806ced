// The parts of the report context (report_context.h), one loader per file,
// and what they share: the index's files by id and by (bundle, path), and
// typed reads of query cells. Internal to the report stage.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "index/index_reader.h"
#include "report/report_context.h"

namespace casefile::context {

// What every part needs from the index, read once.
struct IndexFacts {
  const IndexReader* index = nullptr;
  std::vector<BundleRow> bundles;
  std::vector<FileRow> files;
  std::map<int64_t, const FileRow*> by_id;
  std::map<std::pair<std::string, std::string>, const FileRow*>
      by_bundle_path;  // (bundle name, path)
  std::map<int64_t, const BundleRow*> bundle_by_id;

  const FileRow* File(int64_t id) const;
  // The file a piece of evidence cites; nullptr when the index has none.
  const FileRow* EvidenceFile(const Evidence& e) const;
  // The host a file's lines belong to for the timeline and step times: its
  // host, else its bundle's host, else its bundle's name (a one-host bundle
  // often names no host).
  std::string HostOf(const FileRow& f) const;
};
IndexFacts LoadIndexFacts(const IndexReader& index);

// Typed cells of a query row (values are text; NULL is nullopt).
int64_t CellInt(const QueryRow& row, size_t i, int64_t fallback = 0);
double CellReal(const QueryRow& row, size_t i, double fallback = 0);
std::string CellText(const QueryRow& row, size_t i);
std::optional<std::string> CellOpt(const QueryRow& row, size_t i);

ReportInventory LoadInventory(const IndexFacts& facts);
std::vector<VersionSpread> LoadVersions(const IndexFacts& facts, int64_t* component_count);
ReportTimeline LoadTimeline(const IndexFacts& facts, const std::vector<Finding>& findings);
// loss and loss_scale curves.
void LoadCurves(const IndexFacts& facts, const std::vector<Finding>& findings, ReportContext& out);
std::vector<StepTimeStats> LoadStepTimes(const IndexFacts& facts,
                                         const std::vector<Finding>& findings, int64_t* host_count);
LatencyMatrix LoadLatency(const IndexFacts& facts);
std::vector<std::vector<EvidenceContext>> LoadEvidenceContext(const IndexFacts& facts,
                                                              const std::vector<Finding>& findings);
ReportEnvironment LoadEnvironment(const IndexFacts& facts);

// Hosts the findings name as culprits.
std::vector<std::string> CulpritHosts(const std::vector<Finding>& findings);

}  // namespace casefile::context
