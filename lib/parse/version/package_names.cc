#include "parse/version/package_names.h"

#include <algorithm>
#include <array>
#include <utility>

#include "parse/version/version_text.h"

namespace casefile::version {
namespace {

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.';
}

// Normalized names with a component of their own. Anything else is "pip:".
constexpr std::array<std::pair<std::string_view, const char*>, 20> kKnown = {{
    {"torch", kTorch},
    {"deepspeed", kDeepspeed},
    {"transformers", kTransformers},
    {"accelerate", kAccelerate},
    {"jax", kJax},
    {"jaxlib", kJaxlib},
    {"libtpu", kLibtpu},
    {"libtpu-nightly", kLibtpu},
    {"numpy", kNumpy},
    {"triton", kTriton},
    {"pytorch-triton", kTriton},
    {"pytorch-triton-rocm", kTriton},
    {"nvidia-nccl-cu11", kNccl},
    {"nvidia-nccl-cu12", kNccl},
    {"nvidia-nccl-cu13", kNccl},
    {"nvidia-cudnn-cu11", kCudnn},
    {"nvidia-cudnn-cu12", kCudnn},
    {"nvidia-cudnn-cu13", kCudnn},
    // transformers' env report says "PyTorch version", "Python version".
    {"python", kPython},
    {"pytorch", kTorch},
}};

// conda's names for the same software (the pytorch channel's "pytorch",
// conda-forge's "nccl" and "cudnn"); pip has no such packages of its own.
constexpr std::array<std::pair<std::string_view, const char*>, 2> kCondaOnly = {{
    {"nccl", kNccl},
    {"cudnn", kCudnn},
}};

}  // namespace

std::string NormalizeProjectName(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  bool in_run = false;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      if (!in_run) out.push_back('-');
      in_run = true;
      continue;
    }
    in_run = false;
    out.push_back((c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c);
  }
  return out;
}

bool IsProjectName(std::string_view name, bool conda) {
  if (name.empty() || name.size() > 200) return false;
  const char c0 = name[0];
  const bool alnum0 = (c0 >= 'a' && c0 <= 'z') || (c0 >= 'A' && c0 <= 'Z') || StartsWithDigit(name);
  if (!alnum0 && !(conda && c0 == '_')) return false;
  for (char c : name) {
    if (!IsNameChar(c)) return false;
  }
  return true;
}

std::string PackageComponent(std::string_view normalized, bool conda) {
  for (const auto& [name, component] : kKnown) {
    if (name == normalized) return component;
  }
  if (conda) {
    for (const auto& [name, component] : kCondaOnly) {
      if (name == normalized) return component;
    }
  }
  std::string out(kPipPrefix);
  out.append(normalized);
  return out;
}

std::string TorchCudaOfLocalTag(std::string_view version) {
  const size_t plus = version.find('+');
  if (plus == std::string_view::npos) return {};
  std::string_view local = version.substr(plus + 1);
  // Local segments are separated by '.' (PEP 440): "cu117.with.pypi.cudnn".
  while (!local.empty()) {
    const size_t dot = local.find('.');
    const std::string_view seg = local.substr(0, dot);
    if (seg.size() >= 4 && seg.size() <= 5 && seg.substr(0, 2) == "cu" &&
        IsDottedNumber(seg.substr(2))) {
      // The last digit is the minor: cu92 -> 9.2, cu121 -> 12.1, cu130 -> 13.0.
      const std::string_view digits = seg.substr(2);
      std::string out(digits.substr(0, digits.size() - 1));
      out.push_back('.');
      out.push_back(digits.back());
      return out;
    }
    if (dot == std::string_view::npos) break;
    local.remove_prefix(dot + 1);
  }
  return {};
}

bool SplitPin(std::string_view text, std::string_view* name, std::string_view* version) {
  const size_t eq = text.find("==");
  if (eq == std::string_view::npos || eq == 0) return false;
  *name = text.substr(0, eq);
  std::string_view v = text.substr(eq + 2);
  if (!v.empty() && v[0] == '=') v.remove_prefix(1);
  v = v.substr(0, std::min(v.find(' '), v.find(';')));
  *version = v;
  return IsProjectName(*name, false) && !v.empty();
}

bool EmitPackage(const FactOut& out, int64_t line_no, std::string_view name,
                 std::string_view version, std::string_view detail, const char* source) {
  if (!StartsWithDigit(version)) return false;
  const bool conda = source == std::string_view(kSourceConda);
  if (!IsProjectName(name, conda)) return false;
  const std::string component = PackageComponent(NormalizeProjectName(name), conda);
  out.Emit(line_no, component, version, detail, source);
  if (component == kTorch) {
    const std::string cuda = TorchCudaOfLocalTag(version);
    if (!cuda.empty()) out.Emit(line_no, kTorchCuda, cuda, "local tag", source);
  }
  return true;
}

std::string CudaOfCondaBuild(std::string_view build) {
  size_t i = 0;
  while (i <= build.size()) {
    size_t end = build.find('_', i);
    if (end == std::string_view::npos) end = build.size();
    const std::string_view seg = build.substr(i, end - i);
    i = end + 1;
    if (!seg.starts_with("cuda")) continue;
    const std::string_view digits = seg.substr(4);
    if (!IsDottedNumber(digits)) continue;
    const size_t dot = digits.find('.');
    if (dot != std::string_view::npos) {
      // "12.1", "10.2.89": the major and minor.
      const size_t dot2 = digits.find('.', dot + 1);
      return std::string(digits.substr(0, dot2));
    }
    if (digits.size() < 2 || digits.size() > 3) continue;
    // "cuda120" -> 12.0, "cuda92" -> 9.2: the last digit is the minor.
    std::string out(digits.substr(0, digits.size() - 1));
    out.push_back('.');
    out.push_back(digits.back());
    return out;
  }
  return {};
}

bool EmitCondaPackage(const FactOut& out, int64_t line_no, std::string_view name,
                      std::string_view version, std::string_view build) {
  if (!IsProjectName(name, true) || !StartsWithDigit(version)) return false;
  const std::string normalized = NormalizeProjectName(name);
  if (normalized == "pytorch-cuda") {
    out.Emit(line_no, kTorchCuda, version, "pytorch-cuda", kSourceConda);
    return true;
  }
  if (!EmitPackage(out, line_no, name, version, "", kSourceConda)) return false;
  if (PackageComponent(normalized, true) == kTorch && TorchCudaOfLocalTag(version).empty()) {
    const std::string cuda = CudaOfCondaBuild(build);
    if (!cuda.empty()) out.Emit(line_no, kTorchCuda, cuda, "conda build", kSourceConda);
  }
  return true;
}

}  // namespace casefile::version
