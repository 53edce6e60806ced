#include "analyze/analyzer.h"

#include <algorithm>

namespace casefile {

AnalysisContext::AnalysisContext(const IndexReader& index)
    : index_(index),
      shared_(std::make_shared<Shared>()),
      files_(index.Files()),
      bundles_(index.Bundles()) {}

AnalysisContext::AnalysisContext(const IndexReader& index, const AnalysisContext& other)
    : index_(index), shared_(other.shared_), files_(other.files_), bundles_(other.bundles_) {}

const RankHostMap& AnalysisContext::rank_hosts() const {
  std::call_once(shared_->rank_hosts_once, [this] {
    shared_->rank_hosts = std::make_unique<RankHostMap>(RankHostMap::Load(index_, files_));
  });
  return *shared_->rank_hosts;
}

const std::string& AnalysisContext::BundleName(int64_t bundle_id) const {
  static const std::string kUnknown;
  for (const auto& b : bundles_) {
    if (b.id == bundle_id) return b.name;
  }
  return kUnknown;
}

const FileRow* AnalysisContext::File(int64_t file_id) const {
  // Files() is ordered by bundle and path, not id, so search; analyzers call
  // this per finding, not per line.
  for (const auto& f : files_) {
    if (f.id == file_id) return &f;
  }
  return nullptr;
}

Evidence AnalysisContext::MakeEvidence(int64_t file_id, int64_t line_no,
                                       std::string_view text) const {
  Evidence e;
  if (const FileRow* f = File(file_id)) {
    e.bundle = BundleName(f->bundle_id);
    e.path = f->path;
  }
  e.line = line_no;
  e.text = std::string(text);
  return e;
}

void AnalysisContext::Emit(Finding f) {
  Normalize(f);
  findings_.push_back(std::move(f));
}

std::vector<Finding> AnalysisContext::TakeFindings() { return std::move(findings_); }

std::optional<std::string> Analyzer::NotApplicable(const AnalysisContext& ctx) const {
  const auto& kinds = info().needed_kinds;
  if (kinds.empty()) return std::nullopt;
  for (const auto& f : ctx.files()) {
    if (std::find(kinds.begin(), kinds.end(), f.kind) != kinds.end()) return std::nullopt;
  }
  std::string need;
  for (const auto& k : kinds) {
    if (!need.empty()) need += " or ";
    need += k;
  }
  return "no " + need + " files in the bundle";
}

}  // namespace casefile
