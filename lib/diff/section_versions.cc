// The versions section of the diff (docs/DIFF.md): components of the
// `versions` table whose version changed, appeared or disappeared between
// the good and the bad run, compared per host where the hosts of a side
// disagree (config_values.h says how hosts are matched).
#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "analyze/query_values.h"
#include "diff/config_values.h"
#include "diff/sections.h"
#include "parse/version/version_facts.h"

namespace casefile::diff {
namespace {

// A pip list of 400 packages on 2,000 hosts is 800k rows: enough for that,
// bounded for anything larger.
constexpr size_t kMaxVersionRows = 2'000'000;
constexpr std::string_view kNcclLog = version::kSourceNcclLog;

// The components whose change most often breaks a distributed run.
bool IsKeyComponent(std::string_view component) {
  static constexpr std::string_view kKey[] = {
      "torch", "torch_cuda", "nvcc",   "cuda_toolkit", "driver",    "driver_cuda",  "nccl",
      "cudnn", "jax",        "jaxlib", "libtpu",       "deepspeed", "transformers", "triton"};
  if (std::find(std::begin(kKey), std::end(kKey), component) != std::end(kKey)) return true;
  if (component.substr(0, 4) != "pip:") return false;
  const std::string_view pkg = component.substr(4);
  static constexpr std::string_view kPipPrefixes[] = {
      "nvidia-nccl",   "nvidia-cudnn", "nvidia-cuda-runtime", "nvidia-cuda-nvcc", "jax-cuda",
      "torch-xla",     "libtpu",       "deepspeed",           "transformers",     "triton",
      "pytorch-triton"};
  for (std::string_view p : kPipPrefixes) {
    if (pkg.substr(0, p.size()) == p) return true;
  }
  return false;
}

std::string DisplayName(const std::string& component) {
  static const std::map<std::string, std::string> kNames = {
      {"torch", "PyTorch"},
      {"torch_cuda", "PyTorch's CUDA build"},
      {"nvcc", "nvcc"},
      {"cuda_toolkit", "CUDA toolkit"},
      {"driver", "NVIDIA driver"},
      {"driver_cuda", "driver CUDA version"},
      {"nccl", "NCCL"},
      {"cudnn", "cuDNN"},
      {"deepspeed", "DeepSpeed"},
      {"deepspeed_build", "DeepSpeed build"},
      {"triton", "Triton"},
      {"gpu_name", "GPU model"},
      {"gpu_compute_capability", "GPU compute capability"},
      {"python", "Python"},
      {"os", "OS"},
      {"nvcc_path", "nvcc on PATH"},
      {"cuda_home", "CUDA_HOME toolkit"},
      {"path_cuda", "CUDA toolkit on PATH"},
      {"ld_library_path_cuda", "CUDA toolkit on LD_LIBRARY_PATH"},
      {"torch_cuda_arch_list", "TORCH_CUDA_ARCH_LIST"},
  };
  auto it = kNames.find(component);
  if (it != kNames.end()) return it->second;
  if (component.rfind("pip:", 0) == 0) return component.substr(4) + " (pip)";
  return component;
}

// A detail that only numbers one of many alike (per GPU, per process) is
// folded into the component: the host's value is then the set of what its
// GPUs or processes showed. Other details (a toolkit or library path) keep
// their own key.
bool IsInstanceDetail(std::string_view detail) {
  return detail.substr(0, 4) == "GPU " || detail.substr(0, 5) == "host " ||
         detail.substr(0, 4) == "pid ";
}

// nccl_log rows name the process's host in the detail ("host node-3 pid
// 4242"): a shared launcher log holds the NCCL output of many hosts.
std::optional<std::string_view> NcclLogHost(std::string_view detail) {
  if (detail.substr(0, 5) != "host ") return std::nullopt;
  const size_t end = detail.find(" pid ", 5);
  return detail.substr(5, end == std::string_view::npos ? std::string_view::npos : end - 5);
}

struct KeyInfo {
  std::string component;
  std::string detail;
};

struct SideVersions {
  std::map<std::string, KeyValues> keys;                                        // by key
  std::map<std::string, std::map<std::string, std::set<std::string>>> sources;  // key -> host
  std::map<std::string, std::set<std::string>> hosts_by_source;
};

// Small ids for the strings that repeat on every host (keys, hosts,
// versions, sources), so a side of a few hundred thousand rows is read
// without an allocation per row.
class Interner {
 public:
  int Id(std::string_view s) {
    auto it = ids_.find(s);
    if (it != ids_.end()) return it->second;
    const int id = static_cast<int>(names_.size());
    names_.emplace_back(s);
    ids_.emplace(names_.back(), id);
    return id;
  }
  const std::string& Name(int id) const { return names_[static_cast<size_t>(id)]; }

 private:
  std::map<std::string, int, std::less<>> ids_;
  std::deque<std::string> names_;  // stable addresses for the map's keys
};

// One row of `versions` as the section reads it.
struct Fact {
  int key = 0, host = 0, rank = 0, version = 0, source = 0;
  ValueSource line;
};

std::string_view ViewOf(const QueryValue& v) {
  return v ? std::string_view(*v) : std::string_view();
}

void LoadVersions(const DiffSide& side, SideVersions& out, std::map<std::string, KeyInfo>& info,
                  std::map<std::string, std::set<std::string>>& key_sources) {
  if (side.index == nullptr) return;
  Interner keys, hosts, versions, sources;
  std::vector<KeyInfo> key_info;
  std::vector<Fact> facts;
  std::map<int64_t, int> file_host;
  std::string key;
  // Insertion order (rowid) is file and line order: no sort needed.
  side.index->Query(
      "SELECT file_id, line_no, component, version, detail, source FROM versions ORDER BY rowid",
      [&](const QueryRow& r) {
        if (facts.size() >= kMaxVersionRows) return false;
        const auto& v = r.values;
        const int64_t file_id = IntOf(v[0]).value_or(0);
        const std::string_view component = ViewOf(v[2]);
        std::string_view detail = ViewOf(v[4]);
        const std::string_view source = ViewOf(v[5]);
        int host = 0;
        const std::optional<std::string_view> nccl_host =
            source == kNcclLog ? NcclLogHost(detail) : std::nullopt;
        if (nccl_host) {
          host = hosts.Id(*nccl_host);
        } else {
          auto [it, fresh] = file_host.emplace(file_id, 0);
          if (fresh) {
            const FileRow* f = side.File(file_id);
            it->second = hosts.Id(f != nullptr && f->host ? std::string_view(*f->host) : "");
          }
          host = it->second;
        }
        if (IsInstanceDetail(detail)) detail = {};
        key.assign(component);
        if (!detail.empty()) key.append(" [").append(detail).append("]");
        Fact fact;
        fact.key = keys.Id(key);
        if (static_cast<size_t>(fact.key) == key_info.size()) {
          key_info.push_back({std::string(component), std::string(detail)});
        }
        fact.host = host;
        fact.rank = version::SourcePreference(source);
        fact.version = versions.Id(ViewOf(v[3]));
        fact.source = sources.Id(source);
        fact.line = {file_id, IntOf(v[1]).value_or(0)};
        facts.push_back(fact);
        return true;
      });
  // Per key and host, the preferred report first, each report in file order.
  std::stable_sort(facts.begin(), facts.end(), [](const Fact& a, const Fact& b) {
    return std::tie(a.key, a.host, a.rank) < std::tie(b.key, b.host, b.rank);
  });
  for (const Fact& f : facts) {
    info.emplace(keys.Name(f.key), key_info[static_cast<size_t>(f.key)]);
    key_sources[keys.Name(f.key)].insert(sources.Name(f.source));
  }
  std::vector<std::set<int>> hosts_by_source;
  for (const Fact& f : facts) {
    if (static_cast<size_t>(f.source) >= hosts_by_source.size()) {
      hosts_by_source.resize(static_cast<size_t>(f.source) + 1);
    }
    hosts_by_source[static_cast<size_t>(f.source)].insert(f.host);
  }
  for (size_t s = 0; s < hosts_by_source.size(); ++s) {
    std::set<std::string>& names = out.hosts_by_source[sources.Name(static_cast<int>(s))];
    for (int h : hosts_by_source[s]) names.insert(hosts.Name(h));
  }
  // The host's value of a key is what its preferred report says. The lines
  // of the other reports that say the same are cited too (after the
  // preferred one): a reader checks a version in the report they know.
  for (size_t i = 0; i < facts.size();) {
    size_t end = i;
    while (end < facts.size() && facts[end].key == facts[i].key &&
           facts[end].host == facts[i].host) {
      ++end;
    }
    const std::string& key_name = keys.Name(facts[i].key);
    const std::string& host_name = hosts.Name(facts[i].host);
    HostValue& value = out.keys[key_name].by_host[host_name];
    std::set<std::string>& used = out.sources[key_name][host_name];
    for (size_t j = i; j < end && facts[j].rank == facts[i].rank; ++j) {
      const std::string& version = versions.Name(facts[j].version);
      value.Add(version, version.empty() ? "(no version)" : version, facts[j].line);
      used.insert(sources.Name(facts[j].source));
    }
    for (size_t j = i; j < end; ++j) {
      if (facts[j].rank != facts[i].rank && value.values.count(versions.Name(facts[j].version))) {
        value.Cite(facts[j].line);
      }
    }
    i = end;
  }
}

// The hosts of a side that ran a report which could have named `key`.
std::set<std::string> HostsFor(const SideVersions& side, const std::set<std::string>& sources) {
  std::set<std::string> out;
  for (const std::string& s : sources) {
    auto it = side.hosts_by_source.find(s);
    if (it != side.hosts_by_source.end()) out.insert(it->second.begin(), it->second.end());
  }
  return out;
}

std::string SourcesText(const SideVersions& side, const std::string& key) {
  std::set<std::string> all;
  auto it = side.sources.find(key);
  if (it != side.sources.end()) {
    for (const auto& [host, sources] : it->second) all.insert(sources.begin(), sources.end());
  }
  std::string out;
  for (const std::string& s : all) out += (out.empty() ? "" : ",") + s;
  return out;
}

double Score(bool key_component, const std::string& kind) {
  if (kind == "changed") return key_component ? 80 : 40;
  return key_component ? 60 : 25;
}

std::string Summary(const std::string& name, const ValueDelta& d) {
  std::string where = WhereText(d);
  if (!where.empty()) where = " " + where;
  if (d.kind == "changed") return name + " " + *d.good + " -> " + *d.bad + where;
  if (d.kind == "added") return name + " " + *d.bad + " added" + where;
  return name + " " + *d.good + " removed" + where;
}

}  // namespace

std::vector<DiffItem> DiffVersions(const DiffSide& good, const DiffSide& bad) {
  SideVersions g, b;
  std::map<std::string, KeyInfo> info;
  std::map<std::string, std::set<std::string>> key_sources;
  LoadVersions(good, g, info, key_sources);
  LoadVersions(bad, b, info, key_sources);

  std::vector<DiffItem> items;
  for (const auto& [key, ki] : info) {
    const std::set<std::string>& sources = key_sources[key];
    const auto gk = g.keys.find(key);
    const auto bk = b.keys.find(key);
    const std::vector<ValueDelta> deltas =
        CompareKey(gk == g.keys.end() ? nullptr : &gk->second, HostsFor(g, sources),
                   bk == b.keys.end() ? nullptr : &bk->second, HostsFor(b, sources));
    const bool key_component = IsKeyComponent(ki.component);
    std::string name = DisplayName(ki.component);
    if (!ki.detail.empty()) name += " (" + ki.detail + ")";
    for (const ValueDelta& d : deltas) {
      DiffItem item;
      item.section = "versions";
      item.key = key;
      FillFromDelta(good, bad, d, item);
      item.score = Score(key_component, d.kind);
      item.summary = Summary(name, d);
      item.fields.insert(item.fields.begin(), {"component", ki.component});
      if (!ki.detail.empty()) item.fields.insert(item.fields.begin() + 1, {"detail", ki.detail});
      item.fields.push_back({"key_component", key_component});
      item.fields.push_back({"sources_good", SourcesText(g, key)});
      item.fields.push_back({"sources_bad", SourcesText(b, key)});
      items.push_back(std::move(item));
    }
  }
  RankItems(items);
  return items;
}

}  // namespace casefile::diff
