// build.version_skew (docs/FINDINGS.md): hosts of one job on different
// versions of the libraries that must agree across ranks. Each node's log
// looks healthy alone; the skew shows only when hosts are compared.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "analyze/analyzers/build/build_common.h"
#include "analyze/analyzers/build/build_rules.h"
#include "parse/version/version_facts.h"

namespace casefile::build {
namespace {

// The components compared, in the order the summary names them.
constexpr const char* kCompared[] = {
    version::kTorch,  version::kTorchCuda, version::kNccl,      version::kJax,
    version::kJaxlib, version::kLibtpu,    version::kDeepspeed, version::kDriver,
};

struct HostValue {
  std::string host;
  const VersionFactRow* row;
};

// Per host, the component's row from `source` (or the host's preferred row
// when `source` is empty).
std::vector<HostValue> ValuesOf(const std::vector<const VersionFactRow*>& rows,
                                const std::string& source) {
  std::map<std::string, const VersionFactRow*> best;
  for (const VersionFactRow* r : rows) {
    if (!source.empty() && r->source != source) continue;
    auto [it, added] = best.emplace(r->host, r);
    if (!added && SourceRank(r->source) < SourceRank(it->second->source)) it->second = r;
  }
  std::vector<HostValue> out;
  for (const auto& [host, row] : best) out.push_back({host, row});
  return out;
}

// Whether dotted version `a` is older than `b`, number by number
// ("535.104.05" < "550.54.15", "2.3.1" < "2.10.0"); text after the numbers
// is compared as text.
bool VersionBefore(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = a[i] >= '0' && a[i] <= '9', db = b[j] >= '0' && b[j] <= '9';
    if (!da || !db) return a.substr(i) < b.substr(j);
    uint64_t x = 0, y = 0;
    for (; i < a.size() && a[i] >= '0' && a[i] <= '9'; ++i) x = x * 10 + uint64_t(a[i] - '0');
    for (; j < b.size() && b[j] >= '0' && b[j] <= '9'; ++j) y = y * 10 + uint64_t(b[j] - '0');
    if (x != y) return x < y;
    if (i < a.size() && a[i] == '.' && j < b.size() && b[j] == '.') ++i, ++j;
  }
  return a.size() - i < b.size() - j;
}

}  // namespace

std::optional<Finding> BuildVersionSkew(const BuildFacts& facts) {
  // Rows per component, across hosts.
  std::map<std::string, std::vector<const VersionFactRow*>> by_component;
  std::set<std::string> hosts_seen;
  for (const VersionFactRow& r : facts.versions) {
    // A report whose host is unknown cannot be told apart from the others.
    if (r.host.empty()) continue;
    hosts_seen.insert(r.host);
    for (const char* c : kCompared) {
      if (r.component == c) by_component[c].push_back(&r);
    }
  }
  if (hosts_seen.size() < 2) return std::nullopt;
  Finding f = NewFinding("build.version_skew", Severity::kWarning,
                         "Hosts of the job run different versions");
  std::string summary;
  bool error = false;
  std::set<std::string> culprit_hosts;
  for (const char* component : kCompared) {
    const auto it = by_component.find(component);
    if (it == by_component.end()) continue;
    // Compare what one report says on every host when one report covers
    // them all (pip's "2.3.1" and collect_env's "2.3.1+cu121" are the same
    // torch); else each host's preferred report.
    std::map<std::string, std::set<std::string>> hosts_of_source;
    std::set<std::string> hosts;
    for (const VersionFactRow* r : it->second) {
      hosts_of_source[r->source].insert(r->host);
      hosts.insert(r->host);
    }
    if (hosts.size() < 2) continue;
    std::string shared;
    int shared_rank = 1 << 20;
    for (const auto& [source, with] : hosts_of_source) {
      if (with.size() == hosts.size() && SourceRank(source) < shared_rank) {
        shared = source;
        shared_rank = SourceRank(source);
      }
    }
    const std::vector<HostValue> values = ValuesOf(it->second, shared);
    // The local tag is compared only when every host's version has one and
    // they come from one report: PyPI's torch is "2.3.1" to pip and
    // "2.3.1+cu121" to torch itself, and pip shows the same CUDA build as
    // "2.3.1" from PyPI and "2.3.1+cu121" from download.pytorch.org;
    // ds_report adds a git hash (torch_cuda compares the CUDA part on its
    // own).
    bool every_tagged = !shared.empty();
    for (const HostValue& v : values) {
      every_tagged = every_tagged && v.row->version.find('+') != std::string::npos;
    }
    std::map<std::string, std::vector<const HostValue*>> by_version;
    for (const HostValue& v : values) {
      std::string key = v.row->version;
      if (!every_tagged) key = key.substr(0, key.find('+'));
      by_version[key].push_back(&v);
    }
    if (by_version.size() < 2) continue;
    // The majority version; on a tie, that of the first host by name.
    const std::string* majority = nullptr;
    size_t best = 0;
    for (const auto& [ver, list] : by_version) {
      if (list.size() > best) {
        best = list.size();
        majority = &ver;
      }
    }
    // On a tie, the newest of the tied versions: with nothing else to go
    // by, the hosts left behind on an older image or driver are the usual
    // odd ones out.
    for (const auto& [ver, list] : by_version) {
      if (list.size() == best && VersionBefore(*majority, ver)) majority = &ver;
    }
    if (std::string(component) != version::kDriver) error = true;
    if (!summary.empty()) summary += "; ";
    summary += std::string(component) + " ";
    bool first = true;
    for (const auto& [ver, list] : by_version) {
      std::vector<std::string> names;
      for (const HostValue* v : list) names.push_back(v->host);
      summary += (first ? "" : ", ") + ver + " on " + HostList(names, 3);
      first = false;
      if (ver == *majority) continue;
      for (const HostValue* v : list) {
        culprit_hosts.insert(v->host);
        AddCulprit(f, v->host);
      }
    }
    // One line of the odd host out and one of the majority.
    for (const auto& [ver, list] : by_version) {
      if (ver != *majority) {
        f.evidence.push_back(facts.line(list.front()->row->file_id, list.front()->row->line_no));
        break;
      }
    }
    const HostValue* m = by_version[*majority].front();
    f.evidence.push_back(facts.line(m->row->file_id, m->row->line_no));
  }
  if (f.evidence.empty()) return std::nullopt;
  f.severity = error ? Severity::kError : Severity::kWarning;
  const std::vector<std::string> odd(culprit_hosts.begin(), culprit_hosts.end());
  f.summary = HostList(odd) + " run" + (odd.size() == 1 ? "s" : "") +
              " other versions than the rest of the job: " + summary + "." +
              (error ? " Ranks on different torch, NCCL or JAX releases can disagree on "
                       "collective protocols and serialisation, and hang or fail."
                     : " Different driver releases are usually compatible, but they make "
                       "failures host-specific.");
  f.recommendation =
      "Run every host from one image or one locked environment (pip freeze / conda lock) and "
      "the same driver; redeploy the odd hosts and compare `pip freeze` across hosts before "
      "launching.";
  return f;
}

}  // namespace casefile::build
