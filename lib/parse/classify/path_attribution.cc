#include "parse/classify/path_attribution.h"

#include <vector>

#include "parse/classify/name_util.h"

namespace casefile {
namespace {

using classify_internal::AsciiLowerCopy;
using classify_internal::IsAsciiAlnum;
using classify_internal::IsAsciiAlpha;
using classify_internal::IsAsciiDigit;
using classify_internal::ReadSmallNumber;
using classify_internal::SplitPath;
using classify_internal::StripGz;

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsAsciiDigit(c)) return false;
  }
  return true;
}

// "<word>[-_]<digits>" and nothing else; `lower` is lower-cased.
bool IsWordNumber(std::string_view lower, std::string_view word) {
  if (!StartsWith(lower, word)) return false;
  std::string_view rest = lower.substr(word.size());
  if (!rest.empty() && (rest[0] == '-' || rest[0] == '_')) rest.remove_prefix(1);
  return AllDigits(rest) && rest.size() <= 9;
}

// The worker number of a TPU VM name "t1v-n-….-w-3" / "tpu-vm-…-w-3".
std::optional<int64_t> TpuWorker(std::string_view lower) {
  if (!StartsWith(lower, "t1v-") && !StartsWith(lower, "tpu-")) return std::nullopt;
  size_t w = lower.rfind("-w-");
  if (w == std::string_view::npos) return std::nullopt;
  std::string_view digits = lower.substr(w + 3);
  int64_t n = 0;
  if (!AllDigits(digits) || ReadSmallNumber(digits, 0, n) != digits.size()) return std::nullopt;
  return n;
}

bool IsAwsHost(std::string_view lower) {
  if (!StartsWith(lower, "ip-")) return false;
  int groups = 0;
  for (std::string_view rest = lower.substr(3); !rest.empty();) {
    size_t dash = rest.find('-');
    std::string_view group = rest.substr(0, dash);
    if (!AllDigits(group) || group.size() > 3) return false;
    ++groups;
    if (dash == std::string_view::npos) break;
    rest.remove_prefix(dash + 1);
  }
  return groups == 4;
}

// Host-like by its own name (the parent-folder rule is applied by the caller).
bool IsHostName(std::string_view lower) {
  return IsWordNumber(lower, "host") || IsWordNumber(lower, "node") ||
         TpuWorker(lower).has_value() || IsAwsHost(lower);
}

// "rank3", "rank_3", "rank-3", "rank.3" inside one component.
std::optional<int64_t> RankIn(std::string_view lower) {
  for (size_t pos = lower.find("rank"); pos != std::string_view::npos;
       pos = lower.find("rank", pos + 1)) {
    if (pos > 0 && IsAsciiAlpha(lower[pos - 1])) continue;
    std::string_view before = lower.substr(0, pos);
    if (EndsWith(before, "local") || EndsWith(before, "local_") || EndsWith(before, "local-")) {
      continue;
    }
    size_t j = pos + 4;
    if (j < lower.size() && (lower[j] == '_' || lower[j] == '-' || lower[j] == '.')) ++j;
    int64_t value = 0;
    size_t digits = ReadSmallNumber(lower, j, value);
    if (digits == 0) continue;
    size_t end = j + digits;
    if (end < lower.size() && IsAsciiAlnum(lower[end])) continue;
    return value;
  }
  return std::nullopt;
}

// "worker_3", "worker-3", "worker3" anywhere in a component, bounded.
std::optional<int64_t> NumberAfterWord(std::string_view lower, std::string_view word) {
  for (size_t pos = lower.find(word); pos != std::string_view::npos;
       pos = lower.find(word, pos + 1)) {
    if (pos > 0 && IsAsciiAlnum(lower[pos - 1])) continue;
    size_t j = pos + word.size();
    if (j < lower.size() && (lower[j] == '_' || lower[j] == '-')) ++j;
    int64_t value = 0;
    size_t digits = ReadSmallNumber(lower, j, value);
    if (digits == 0) continue;
    size_t end = j + digits;
    if (end < lower.size() && IsAsciiAlnum(lower[end])) continue;
    return value;
  }
  return std::nullopt;
}

// The host named by a profiler output file, or "".
std::string HostFromProfilerFile(const std::vector<std::string_view>& comps,
                                 const std::vector<std::string>& lower) {
  size_t n = comps.size();
  std::string_view file = StripGz(comps[n - 1]);
  std::string_view lfile = StripGz(lower[n - 1]);
  // torch.profiler: "<host>_<pid>.<time_ns>.pt.trace.json".
  if (EndsWith(lfile, ".pt.trace.json")) {
    std::string_view stem = file.substr(0, file.size() - 14);
    size_t dot = stem.rfind('.');
    if (dot == std::string_view::npos || !AllDigits(stem.substr(dot + 1))) return "";
    stem = stem.substr(0, dot);
    size_t us = stem.rfind('_');
    if (us != std::string_view::npos && us > 0 && AllDigits(stem.substr(us + 1))) {
      stem = stem.substr(0, us);
    }
    return std::string(stem);
  }
  // jax.profiler: "plugins/profile/<run>/<host>.<tool suffix>".
  if (n >= 4 && lower[n - 4] == "plugins" && lower[n - 3] == "profile") {
    static constexpr std::string_view kSuffixes[] = {
        ".xplane.pb",       ".trace.json",       ".memory_profile.json", ".input_pipeline.pb",
        ".kernel_stats.pb", ".overview_page.pb", ".tensorflow_stats.pb"};
    for (std::string_view suffix : kSuffixes) {
      if (EndsWith(lfile, suffix) && lfile.size() > suffix.size()) {
        return std::string(file.substr(0, file.size() - suffix.size()));
      }
    }
  }
  return "";
}

}  // namespace

PathAttribution AttributeFromPath(std::string_view path) {
  PathAttribution out;
  std::vector<std::string_view> comps = SplitPath(path);
  if (comps.empty()) return out;
  std::vector<std::string> lower;
  lower.reserve(comps.size());
  for (std::string_view c : comps) lower.push_back(AsciiLowerCopy(c));
  const size_t n = comps.size();

  std::optional<int64_t> tpu_worker;
  // The outermost host-like directory, except that the collector's own
  // folder (hosts/<host>/ at the bundle root) yields to a deeper one: the
  // files under it were collected on that host but written by the deeper
  // one (per-node folders of a shared file system).
  bool collector_folder = false;
  for (size_t i = 0; i + 1 < n; ++i) {
    bool under_hosts =
        i > 0 && (lower[i - 1] == "hosts" || lower[i - 1] == "nodes" || lower[i - 1] == "machines");
    if (under_hosts || IsHostName(lower[i])) {
      out.host = std::string(comps[i]);
      tpu_worker = TpuWorker(lower[i]);
      if (!collector_folder && i == 1 && lower[0] == "hosts") {
        collector_folder = true;
        continue;
      }
      break;
    }
  }
  if (!out.host) {
    std::string host = HostFromProfilerFile(comps, lower);
    if (!host.empty()) {
      out.host = std::move(host);
    } else {
      std::string_view lfile = lower[n - 1];
      std::string_view file = comps[n - 1];
      size_t dot = lfile.find('.');
      if (dot != std::string_view::npos && dot > 0) {
        std::string_view stem = lfile.substr(0, dot);
        if (IsWordNumber(stem, "host") || IsWordNumber(stem, "node") || TpuWorker(stem)) {
          out.host = std::string(file.substr(0, dot));
          tpu_worker = TpuWorker(stem);
        }
      }
    }
  }

  for (size_t k = n; k-- > 0;) {
    if (auto worker = NumberAfterWord(lower[k], "worker")) {
      out.task = "worker_" + std::to_string(*worker);
      break;
    }
    if (auto task = NumberAfterWord(lower[k], "task")) {
      out.task = "task_" + std::to_string(*task);
      if (k > 0 && IsWordNumber(lower[k - 1], "slice")) {
        int64_t slice = 0;
        std::string_view s = lower[k - 1];
        size_t start = 5 + ((s.size() > 5 && (s[5] == '_' || s[5] == '-')) ? 1 : 0);
        ReadSmallNumber(s, start, slice);
        out.task = "slice_" + std::to_string(slice) + "/" + *out.task;
      }
      break;
    }
  }
  if (!out.task && tpu_worker) out.task = "worker_" + std::to_string(*tpu_worker);

  for (size_t k = n; k-- > 0;) {
    if (auto rank = RankIn(lower[k])) {
      out.rank = rank;
      break;
    }
  }
  return out;
}

}  // namespace casefile
