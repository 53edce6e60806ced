#include <algorithm>
#include <cstdlib>

#include "report/context/context_parts.h"

namespace casefile::context {

const FileRow* IndexFacts::File(int64_t id) const {
  auto it = by_id.find(id);
  return it == by_id.end() ? nullptr : it->second;
}

const FileRow* IndexFacts::EvidenceFile(const Evidence& e) const {
  auto it = by_bundle_path.find({e.bundle, e.path});
  if (it != by_bundle_path.end()) return it->second;
  // Evidence of a one-bundle report may leave the bundle empty: the path
  // alone then names the file when it is unique.
  if (e.bundle.empty()) {
    const FileRow* found = nullptr;
    for (const FileRow& f : files) {
      if (f.path != e.path) continue;
      if (found != nullptr) return nullptr;
      found = &f;
    }
    return found;
  }
  return nullptr;
}

std::string IndexFacts::HostOf(const FileRow& f) const {
  if (f.host && !f.host->empty()) return *f.host;
  auto it = bundle_by_id.find(f.bundle_id);
  if (it == bundle_by_id.end()) return "";
  if (it->second->host && !it->second->host->empty()) return *it->second->host;
  return it->second->name;
}

IndexFacts LoadIndexFacts(const IndexReader& index) {
  IndexFacts facts;
  facts.index = &index;
  facts.bundles = index.Bundles();
  facts.files = index.Files();
  for (const BundleRow& b : facts.bundles) facts.bundle_by_id[b.id] = &b;
  for (const FileRow& f : facts.files) {
    facts.by_id[f.id] = &f;
    auto b = facts.bundle_by_id.find(f.bundle_id);
    if (b != facts.bundle_by_id.end()) facts.by_bundle_path[{b->second->name, f.path}] = &f;
  }
  return facts;
}

int64_t CellInt(const QueryRow& row, size_t i, int64_t fallback) {
  if (i >= row.values.size() || !row.values[i]) return fallback;
  return std::strtoll(row.values[i]->c_str(), nullptr, 10);
}

double CellReal(const QueryRow& row, size_t i, double fallback) {
  if (i >= row.values.size() || !row.values[i]) return fallback;
  return std::strtod(row.values[i]->c_str(), nullptr);
}

std::string CellText(const QueryRow& row, size_t i) {
  if (i >= row.values.size() || !row.values[i]) return "";
  return *row.values[i];
}

std::optional<std::string> CellOpt(const QueryRow& row, size_t i) {
  if (i >= row.values.size()) return std::nullopt;
  return row.values[i];
}

std::vector<std::string> CulpritHosts(const std::vector<Finding>& findings) {
  std::vector<std::string> hosts;
  for (const Finding& f : findings) {
    for (const Culprit& c : f.culprits) {
      if (c.host && std::find(hosts.begin(), hosts.end(), *c.host) == hosts.end()) {
        hosts.push_back(*c.host);
      }
    }
  }
  return hosts;
}

}  // namespace casefile::context
