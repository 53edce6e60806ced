#include "parse/hlo/hlo_dump_name.h"

namespace casefile {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLowerAlnum(char c) { return IsDigit(c) || (c >= 'a' && c <= 'z'); }

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

size_t DigitRun(std::string_view s, size_t pos) {
  size_t end = pos;
  while (end < s.size() && IsDigit(s[end])) ++end;
  return end - pos;
}

std::optional<int64_t> ToInt(std::string_view digits) {
  if (digits.empty() || digits.size() > 18) return std::nullopt;
  int64_t v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  return v;
}

// "sm_9.0", "sm_100a", "sm_8.9": CUDA compute capability as XLA prints it.
bool IsCudaBackend(std::string_view s) {
  if (s.substr(0, 3) != "sm_") return false;
  size_t i = 3;
  size_t d = DigitRun(s, i);
  if (d == 0) return false;
  i += d;
  if (i < s.size() && s[i] == '.') {
    d = DigitRun(s, i + 1);
    if (d == 0) return false;
    i += 1 + d;
  }
  while (i < s.size() && s[i] >= 'a' && s[i] <= 'z') ++i;
  return i == s.size();
}

// "gfx908", "gfx90a", "gfx942": ROCm architecture names.
bool IsRocmBackend(std::string_view s) {
  if (s.size() < 4 || s.substr(0, 3) != "gfx") return false;
  for (char c : s.substr(3)) {
    if (!IsLowerAlnum(c)) return false;
  }
  return true;
}

// The stage at the end of `stem` (the part after "module_NNNN."), or "".
// Each stage must start the stem or follow a '.'.
std::string_view StageOf(std::string_view stem) {
  auto at_boundary = [&](size_t len) {
    return len <= stem.size() && (len == stem.size() || stem[stem.size() - len - 1] == '.');
  };
  constexpr std::string_view kGpu = "_gpu_after_optimizations";
  if (EndsWith(stem, kGpu)) {
    std::string_view head = stem.substr(0, stem.size() - kGpu.size());
    // The CUDA backend holds a '.', so look for ".sm_" before the last '.'.
    size_t sm = head.rfind("sm_");
    while (sm != std::string_view::npos) {
      if ((sm == 0 || head[sm - 1] == '.') && IsCudaBackend(head.substr(sm))) {
        return stem.substr(sm);
      }
      if (sm == 0) break;
      sm = head.rfind("sm_", sm - 1);
    }
    size_t dot = head.rfind('.');
    std::string_view backend = dot == std::string_view::npos ? head : head.substr(dot + 1);
    if (IsRocmBackend(backend)) return stem.substr(stem.size() - backend.size() - kGpu.size());
    return "";
  }
  for (std::string_view stage :
       {std::string_view("cpu_after_optimizations"), std::string_view("before_optimizations"),
        std::string_view("after_optimizations")}) {
    if (EndsWith(stem, stage) && at_boundary(stage.size()))
      return stem.substr(stem.size() - stage.size());
  }
  return "";
}

}  // namespace

HloDumpName ParseHloDumpName(std::string_view name) {
  HloDumpName out;
  size_t slash = name.rfind('/');
  if (slash != std::string_view::npos) name.remove_prefix(slash + 1);
  if (EndsWith(name, ".gz")) name.remove_suffix(3);
  if (!EndsWith(name, ".txt")) return out;
  name.remove_suffix(4);

  size_t d = DigitRun(name, 0);
  if (d > 0 && d < name.size() && name[d] == '.' && name.substr(d + 1, 7) == "module_") {
    out.timestamp_us = ToInt(name.substr(0, d));
    name.remove_prefix(d + 1);
  }
  if (name.substr(0, 7) != "module_") return out;
  d = DigitRun(name, 7);
  if (d == 0) return out;
  out.module_id = ToInt(name.substr(7, d));
  std::string_view rest = name.substr(7 + d);
  if (rest.empty()) return out;
  if (rest[0] != '.') {
    out.module_id.reset();
    return out;
  }
  rest.remove_prefix(1);
  std::string_view stage = StageOf(rest);
  out.stage = std::string(stage);
  if (stage.empty()) return out;
  std::string_view module = rest.substr(0, rest.size() - stage.size());
  if (!module.empty()) module.remove_suffix(1);  // the '.' before the stage
  out.module_name = std::string(module);
  return out;
}

}  // namespace casefile
