// The bundle inventory: files by kind per bundle, and the hosts.
#include <set>

#include "report/context/context_parts.h"

namespace casefile::context {

ReportInventory LoadInventory(const IndexFacts& facts) {
  ReportInventory inv;
  std::map<int64_t, std::map<std::string, InventoryKind>> kinds;
  std::set<std::string> hosts;
  for (const FileRow& f : facts.files) {
    if (f.entry_type != "file") continue;
    InventoryKind& k = kinds[f.bundle_id][f.kind];
    k.kind = f.kind;
    ++k.files;
    k.bytes += f.size > 0 ? f.size : 0;
    k.lines += f.line_count;
    if (f.host && !f.host->empty()) hosts.insert(*f.host);
  }
  for (const BundleRow& b : facts.bundles) {
    InventoryBundle ib;
    ib.name = b.name;
    ib.format = b.format;
    ib.status = b.status;
    ib.bytes = b.bytes;
    for (auto& [name, k] : kinds[b.id]) ib.kinds.push_back(k);
    if (b.host && !b.host->empty()) hosts.insert(*b.host);
    inv.bundles.push_back(std::move(ib));
  }
  inv.host_count = static_cast<int64_t>(hosts.size());
  for (const std::string& h : hosts) {
    if (inv.hosts.size() >= kContextInventoryHosts) break;
    inv.hosts.push_back(h);
  }
  return inv;
}

}  // namespace casefile::context
