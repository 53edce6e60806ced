// build.load_failed (docs/FINDINGS.md): a compiled library that built (or
// came prebuilt in a wheel) but does not load in this environment. The
// dynamic loader's words, raised by Python as ImportError / OSError and kept
// as the exception of a crash row, say which of three things went wrong:
//   - "undefined symbol: S": the library was built against another release
//     of a library it links (a torch extension against another torch, torch
//     against a newer NCCL than the one on the library path);
//   - "libX.so.N: cannot open shared object file": a library it needs is
//     not installed or not on the library path (a CUDA 11 build on a CUDA
//     12 image);
//   - "version `GLIBCXX_3.4.30' not found": the C++ runtime loaded is older
//     than the compiler that built it.
// Read at analysis from the crash rows, so ingest pays nothing for it.
#include <algorithm>
#include <map>
#include <string>
#include <string_view>

#include "analyze/analyzers/build/build_common.h"
#include "analyze/analyzers/build/build_rules.h"
#include "analyze/summary_text.h"

namespace casefile::build {
namespace {

constexpr std::string_view kUndefined = "undefined symbol: ";
constexpr std::string_view kCannotOpen = ": cannot open shared object file";
constexpr std::string_view kVersionQuote = "version `";

enum class Kind { kTorchSymbol, kNcclSymbol, kOtherSymbol, kMissingLibrary, kCxxRuntime };

struct Case {
  Kind kind = Kind::kOtherSymbol;
  std::string library;  // the library that failed to load, or the one missing
  std::string what;     // the symbol, or the version that was not found
};

std::string_view Basename(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The token that ends at `end` in `text`: back to a space, quote or ": ".
std::string_view TokenBefore(std::string_view text, size_t end) {
  size_t begin = end;
  while (begin > 0) {
    const char c = text[begin - 1];
    if (c == ' ' || c == '\'' || c == '"' || c == '(' || c == '`') break;
    if (c == ':' && begin < end) break;
    --begin;
  }
  return text.substr(begin, end - begin);
}

std::string_view TokenAfter(std::string_view text, size_t begin) {
  size_t end = begin;
  while (end < text.size() && text[end] != ' ' && text[end] != '\'' && text[end] != '"' &&
         text[end] != ')' && text[end] != ',')
    ++end;
  return text.substr(begin, end - begin);
}

bool NamesTorch(std::string_view symbol) {
  // Itanium-mangled names of torch's namespaces: c10, at, torch, caffe2.
  for (std::string_view ns : {"3c10", "2at", "5torch", "6caffe2"}) {
    if (symbol.find(ns) != std::string_view::npos) return true;
  }
  return false;
}

std::optional<Case> ReadCase(std::string_view detail) {
  Case c;
  if (const size_t at = detail.find(kUndefined); at != std::string_view::npos) {
    c.what = std::string(TokenAfter(detail, at + kUndefined.size()));
    size_t end = at;
    while (end > 0 && (detail[end - 1] == ' ' || detail[end - 1] == ':')) --end;
    c.library = std::string(Basename(TokenBefore(detail, end)));
    std::string lower = c.what;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    c.kind = NamesTorch(c.what)                        ? Kind::kTorchSymbol
             : lower.find("nccl") != std::string::npos ? Kind::kNcclSymbol
                                                       : Kind::kOtherSymbol;
    return c;
  }
  if (const size_t at = detail.find(kCannotOpen); at != std::string_view::npos) {
    // A library named by its path is a file that does not exist: a build
    // that did not produce it (build.extension_failed), not a library the
    // loader could not find on its path.
    const std::string_view named = TokenBefore(detail, at);
    if (named.find('/') != std::string_view::npos) return std::nullopt;
    c.kind = Kind::kMissingLibrary;
    c.library = std::string(Basename(named));
    return c.library.empty() ? std::nullopt : std::optional<Case>(c);
  }
  if (const size_t at = detail.find(kVersionQuote); at != std::string_view::npos) {
    const std::string_view version = TokenAfter(detail, at + kVersionQuote.size());
    if (!version.starts_with("GLIBC") && !version.starts_with("CXXABI")) return std::nullopt;
    if (detail.find("not found", at) == std::string_view::npos) return std::nullopt;
    c.kind = Kind::kCxxRuntime;
    c.what = std::string(version);
    if (const size_t req = detail.find("required by ", at); req != std::string_view::npos)
      c.library = std::string(Basename(TokenAfter(detail, req + 12)));
    return c;
  }
  return std::nullopt;
}

// "libcudart.so.11.0" -> "11": the CUDA major of a CUDA runtime library's
// soname (cudart, cublas, cublasLt, nvrtc, cufft, curand, cusolver,
// cusparse); "" for other libraries.
std::string CudaMajorOf(std::string_view lib) {
  for (std::string_view name :
       {"libcudart.so.", "libcublas.so.", "libcublasLt.so.", "libnvrtc.so.", "libcufft.so.",
        "libcurand.so.", "libcusolver.so.", "libcusparse.so."}) {
    if (!lib.starts_with(name)) continue;
    std::string major;
    for (char ch : lib.substr(name.size())) {
      if (ch < '0' || ch > '9') break;
      major += ch;
    }
    return major;
  }
  return "";
}

// "The library amp_C.so does not load: ..." (a sentence without its stop).
std::string CaseText(const Case& c) {
  const std::string lib = "The library " + c.library;
  switch (c.kind) {
    case Kind::kTorchSymbol:
      return lib + " does not load: undefined symbol " + c.what +
             ", a symbol of PyTorch: it was built against another PyTorch release (or C++ ABI) "
             "than the one installed";
    case Kind::kNcclSymbol:
      return lib + " does not load: undefined symbol " + c.what +
             ": the NCCL library loaded is older than the one it was built against";
    case Kind::kOtherSymbol:
      return lib + " does not load: undefined symbol " + c.what +
             ": it was built against other releases of the libraries it links";
    case Kind::kMissingLibrary: {
      const std::string major = CudaMajorOf(c.library);
      if (c.library.starts_with("libcuda.so"))
        return lib + " is missing: no GPU driver is visible to the process";
      if (!major.empty())
        return lib + " is missing: a library was built for CUDA " + major +
               ", whose runtime is not installed or not on the library path";
      return lib + " is missing (cannot open shared object file)";
    }
    case Kind::kCxxRuntime:
      return (c.library.empty() ? std::string("A library") : lib) + " needs " + c.what +
             ", which the C++ runtime loaded (libstdc++) does not have: it is older than the "
             "compiler that built the library";
  }
  return "";
}

// Training went on in the same log after the failure: at least 3 step
// times after its line (a caught ImportError of an optional kernel, the
// program falling back to another implementation).
bool WentOn(const BuildFacts& facts, const BuildErrorRow& e) {
  constexpr size_t kStepsAfter = 3;
  auto it = facts.steps_after_load.find(e.file_id);
  if (it == facts.steps_after_load.end()) return false;
  const auto& steps = it->second;
  auto after = std::upper_bound(steps.begin(), steps.end(), e.line_no,
                                [](int64_t line, const auto& s) { return line < s.first; });
  return static_cast<size_t>(steps.end() - after) >= kStepsAfter;
}

}  // namespace

std::optional<Finding> BuildLoadFailed(const BuildFacts& facts) {
  Finding f = NewFinding("build.load_failed", Severity::kError,
                         "A compiled library does not load (ABI or library path)");
  struct Seen {
    Case c;
    std::vector<std::string> hosts;
  };
  std::vector<Seen> cases;  // in order of first appearance
  std::map<std::pair<std::string, std::string>, size_t> index;
  for (const BuildErrorRow& e : facts.errors) {
    if (e.op != kOpLoadFailed || WentOn(facts, e)) continue;
    std::optional<Case> c = ReadCase(e.detail);
    if (!c) continue;
    auto [it, added] = index.try_emplace({c->library, c->what}, cases.size());
    if (added) cases.push_back({std::move(*c), {}});
    Seen& seen = cases[it->second];
    if (std::find(seen.hosts.begin(), seen.hosts.end(), e.host) != seen.hosts.end()) continue;
    seen.hosts.push_back(e.host);
    AddCulprit(f, e.host, e.rank);
    if (f.evidence.size() < kMaxCited) f.evidence.push_back(facts.line(e.file_id, e.line_no));
  }
  if (cases.empty()) return std::nullopt;
  std::string s;
  bool torch = false, nccl = false, missing = false, cxx = false, other = false;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Seen& seen = cases[i];
    torch |= seen.c.kind == Kind::kTorchSymbol;
    nccl |= seen.c.kind == Kind::kNcclSymbol;
    other |= seen.c.kind == Kind::kOtherSymbol;
    missing |= seen.c.kind == Kind::kMissingLibrary;
    cxx |= seen.c.kind == Kind::kCxxRuntime;
    if (i == 3) {
      s += " And " + Count(cases.size() - i, "more library", "more libraries") + " failed to load.";
      continue;
    }
    if (i > 3) continue;
    s += (s.empty() ? "" : " ") + CaseText(seen.c) + " (on " + HostList(seen.hosts) + ").";
  }
  f.summary = s;
  std::string r;
  if (torch)
    r += "Rebuild the extension against the torch that is installed (pip install "
         "--no-build-isolation --force-reinstall --no-cache-dir <package>), or install the "
         "wheel built for that torch and CUDA release; an image that upgraded torch keeps the "
         "old builds of apex, flash-attn, DeepSpeed ops and the like. ";
  if (nccl)
    r += "Make the process load the NCCL its torch was built with: an older libnccl on "
         "LD_LIBRARY_PATH (a system or module install) shadows the nvidia-nccl wheel. ";
  if (other)
    r += "Rebuild the library against the versions installed, or install the versions it "
         "was built for (ldd -r on it lists what is missing). ";
  if (missing)
    r += "Install the CUDA runtime the package was built for, or the package's build for the "
         "CUDA installed (pip's +cu121 / -cu12 wheels); check LD_LIBRARY_PATH and ldconfig -p "
         "for the library named. ";
  if (cxx)
    r += "Load a libstdc++ at least as new as the compiler that built the library (a conda "
         "environment's libstdcxx-ng, or LD_LIBRARY_PATH to the newer one), or rebuild it with "
         "the system compiler. ";
  r.pop_back();
  f.recommendation = r;
  return f;
}

}  // namespace casefile::build
