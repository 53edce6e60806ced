// Versions across hosts: for each component, each distinct version with the
// hosts that report it, majority first, so a single host on another driver
// or NCCL stands out.
#include <algorithm>
#include <set>
#include <string_view>

#include "parse/version/version_facts.h"
#include "report/context/context_parts.h"

namespace casefile::context {
namespace {

// The components bug reports ask for (the maintainers' templates of PyTorch,
// DeepSpeed, Transformers and JAX), in the order a report lists them.
constexpr std::string_view kKeyComponents[] = {
    "torch",  "torch_cuda", "cuda_toolkit", "nvcc",         "driver",     "driver_cuda",
    "nccl",   "cudnn",      "deepspeed",    "transformers", "accelerate", "jax",
    "jaxlib", "libtpu",     "triton",       "python",       "gpu_name"};

int KeyOrder(std::string_view component) {
  for (size_t i = 0; i < std::size(kKeyComponents); ++i) {
    if (component == kKeyComponents[i]) return static_cast<int>(i);
  }
  return -1;
}

struct ValueHosts {
  std::set<std::string> hosts;
  std::string path;
  int64_t line = 0;
  int64_t first_file = 0;
};

// "12" and "12.1", "12.1" and "12.1.105": the same release at another
// precision (a /usr/local/cuda-12 alias, nvcc's build number).
bool SameRelease(std::string_view shorter, std::string_view longer) {
  return longer.size() > shorter.size() && longer.substr(0, shorter.size()) == shorter &&
         longer[shorter.size()] == '.';
}

}  // namespace

std::vector<VersionSpread> LoadVersions(const IndexFacts& facts, int64_t* component_count) {
  // Hosts are compared on one report kind per component: the kind most
  // hosts have (ties: the most direct, SourceRank). Reports of two kinds
  // name two different things as often as not (collect_env's cuDNN is the
  // system library, pip's the wheel), so comparing one host's collect_env
  // with another's pip list would call a healthy run inconsistent. Within a
  // kind a host has one value, its most precise one.
  struct HostValue {
    std::string value;
    const FileRow* file = nullptr;
    int64_t line = 0;
  };
  // component -> source -> host -> value
  std::map<std::string, std::map<std::string, std::map<std::string, HostValue>>> reports;
  facts.index->Query(
      "SELECT component, version, file_id, line_no, source FROM versions WHERE version <> '' "
      "ORDER BY component, file_id, line_no",
      [&](const QueryRow& row) {
        const FileRow* f = facts.File(CellInt(row, 2));
        if (f == nullptr) return true;
        const std::string value = CellText(row, 1);
        auto [it, added] =
            reports[CellText(row, 0)][CellText(row, 4)].try_emplace(facts.HostOf(*f));
        if (added || SameRelease(it->second.value, value)) {
          it->second = {value, f, CellInt(row, 3)};
        }
        return true;
      });
  // component -> value -> hosts.
  std::map<std::string, std::map<std::string, ValueHosts>> by_component;
  for (const auto& [component, sources] : reports) {
    const std::map<std::string, HostValue>* chosen = nullptr;
    int chosen_rank = 0;
    for (const auto& [source, hosts] : sources) {
      const int rank = version::SourcePreference(source);
      if (chosen == nullptr || hosts.size() > chosen->size() ||
          (hosts.size() == chosen->size() && rank < chosen_rank)) {
        chosen = &hosts;
        chosen_rank = rank;
      }
    }
    for (const auto& [host, hv] : *chosen) {
      ValueHosts& v = by_component[component][hv.value];
      if (v.path.empty() || hv.file->id < v.first_file) {
        v.path = hv.file->path;
        v.line = hv.line;
        v.first_file = hv.file->id;
      }
      v.hosts.insert(host);
    }
  }
  *component_count = static_cast<int64_t>(by_component.size());

  std::vector<VersionSpread> rows;
  for (auto& [component, values] : by_component) {
    VersionSpread row;
    row.component = component;
    row.key = KeyOrder(component) >= 0;
    row.value_count = static_cast<int64_t>(values.size());
    std::vector<std::pair<std::string, ValueHosts*>> ordered;
    for (auto& [value, hosts] : values) ordered.push_back({value, &hosts});
    // Majority first; ties by value, so the output is deterministic.
    std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
      return a.second->hosts.size() > b.second->hosts.size();
    });
    for (const auto& [value, vh] : ordered) {
      if (row.values.size() >= kContextVersionValues) break;
      VersionSpreadValue v;
      v.value = value;
      v.host_count = static_cast<int64_t>(vh->hosts.size());
      for (const std::string& h : vh->hosts) {
        if (v.hosts.size() >= kContextVersionHosts) break;
        v.hosts.push_back(h);
      }
      v.path = vh->path;
      v.line = vh->line;
      row.values.push_back(std::move(v));
    }
    rows.push_back(std::move(row));
  }
  // Key components first in their documented order; then components whose
  // hosts disagree; then the rest by name.
  std::stable_sort(rows.begin(), rows.end(), [](const VersionSpread& a, const VersionSpread& b) {
    const int ka = KeyOrder(a.component), kb = KeyOrder(b.component);
    if ((ka >= 0) != (kb >= 0)) return ka >= 0;
    if (ka >= 0) return ka < kb;
    if (a.differs() != b.differs()) return a.differs();
    return a.component < b.component;
  });
  if (rows.size() > kContextVersionRows) rows.resize(kContextVersionRows);
  return rows;
}

}  // namespace casefile::context
