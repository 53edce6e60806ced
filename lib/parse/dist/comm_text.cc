#include "parse/dist/comm_text.h"

#include <algorithm>

#include "parse/dist/dist_kinds.h"
#include "parse/line/scan.h"

namespace casefile::dist {
namespace {

constexpr size_t npos = std::string_view::npos;

bool Has(std::string_view s, std::string_view part) { return s.find(part) != npos; }

char Lower(char c) { return scan::IsUpper(c) ? static_cast<char>(c - 'A' + 'a') : c; }

// `part` (lower case) anywhere in `s`, either case.
bool HasNoCase(std::string_view s, std::string_view part) {
  if (part.empty() || s.size() < part.size()) return part.empty();
  for (size_t i = 0; i + part.size() <= s.size(); ++i) {
    size_t k = 0;
    while (k < part.size() && Lower(s[i + k]) == part[k]) ++k;
    if (k == part.size()) return true;
  }
  return false;
}

bool AnyOf(std::string_view s, std::initializer_list<std::string_view> parts) {
  for (std::string_view p : parts) {
    if (Has(s, p)) return true;
  }
  return false;
}

// The decimal number at s[i] (an optional '-' first); nullopt when none.
std::optional<int64_t> IntAt(std::string_view s, size_t i) {
  bool neg = false;
  if (i < s.size() && s[i] == '-') {
    neg = true;
    ++i;
  }
  uint64_t v = 0;
  const size_t n = scan::ReadUint(s, i, 12, &v);
  if (n == 0) return std::nullopt;
  return neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
}

// NCCL's result names, in ncclResult_t order (code 1 first).
struct ResultName {
  std::string_view name;
  const char* cls;
};
constexpr ResultName kResultNames[] = {
    {"ncclUnhandledCudaError", kNcclClassCuda},
    {"ncclSystemError", kNcclClassSystem},
    {"ncclInternalError", kNcclClassInternal},
    {"ncclInvalidArgument", kNcclClassInvalidArgument},
    {"ncclInvalidUsage", kNcclClassInvalidUsage},
    {"ncclRemoteError", kNcclClassRemote},
};

// A result code printed by NCCL: "retcode 3" (proxy service), "res=3"
// (service thread), "file.cc:123 -> 3" (the INFO trace of an error unwind).
const char* ClassOfPrintedCode(std::string_view text) {
  for (std::string_view key : {"retcode ", "res="}) {
    if (const size_t at = text.find(key); at != npos) {
      if (auto code = IntAt(text, at + key.size())) return NcclClassOfCode(*code);
    }
  }
  if (const size_t arrow = text.rfind(" -> "); arrow != npos && Has(text.substr(0, arrow), ":")) {
    const std::string_view code = text.substr(arrow + 4);
    uint64_t v = 0;
    if (!code.empty() && scan::ReadUint(code, 0, 3, &v) == code.size()) {
      return NcclClassOfCode(static_cast<int64_t>(v));
    }
  }
  return nullptr;
}

// The strerror() texts NCCL's socket and ibverbs calls and c10d's sockets
// print, most specific first.
constexpr std::string_view kErrnoTexts[] = {
    "Connection reset by peer",
    "Connection refused",
    "Connection timed out",
    "Network is unreachable",
    "No route to host",
    "Software caused connection abort",
    "Broken pipe",
    "Cannot assign requested address",
    "Address already in use",
    "Address family not supported by protocol",
    "Transport endpoint is not connected",
    "Connection aborted",
    "Host is down",
    "Name or service not known",
    "Temporary failure in name resolution",
    "No such device",
    "Cannot allocate memory",
    "Resource temporarily unavailable",
    "Operation not permitted",
    "Bad address",
};

bool IsHostChar(char c) {
  return scan::IsAlnum(c) || c == '.' || c == '-' || c == '_' || c == ':' || c == '%';
}

}  // namespace

const char* NcclClassOfCode(int64_t code) {
  if (code >= 1 && code <= 6) return kResultNames[code - 1].cls;
  return nullptr;
}

const char* NcclClassOf(std::string_view text) {
  for (size_t at = text.find("nccl"); at != npos; at = text.find("nccl", at + 4)) {
    for (const ResultName& r : kResultNames) {
      if (text.substr(at, r.name.size()) == r.name) return r.cls;
    }
  }
  if (const char* cls = ClassOfPrintedCode(text)) return cls;
  if (AnyOf(text,
            {"unhandled cuda error", "Cuda failure", "CUDA error", "cudaError", "cuda failure"})) {
    return kNcclClassCuda;
  }
  if (AnyOf(text, {"remote process exited", "remote peer", "Got completion from peer",
                   "closed by peer"})) {
    return kNcclClassRemote;
  }
  if (Has(text, "internal error")) return kNcclClassInternal;
  if (AnyOf(text, {"invalid usage", "Duplicate GPU detected"})) return kNcclClassInvalidUsage;
  if (Has(text, "invalid argument")) return kNcclClassInvalidArgument;
  if (AnyOf(text, {"unhandled system error", "System call", "Network is unreachable",
                   "Connection refused", "Connection reset", "Software caused connection abort",
                   "No route to host", "Connection timed out", "Broken pipe"})) {
    return kNcclClassSystem;
  }
  if (Has(text, "ibv_") && (Has(text, "failed") || Has(text, "error"))) return kNcclClassSystem;
  if (HasNoCase(text, "socket")) return kNcclClassSystem;
  return nullptr;
}

bool IsBenignNcclWarn(std::string_view text) {
  if (Has(text, "Could not find real path")) return true;
  if (Has(text, "Plugin") &&
      AnyOf(text, {"libnccl-net", "libnccl-tuner", "No plugin found", "Could not find",
                   "cannot open shared object", "Failed to find ncclNetPlugin",
                   "Failed to find ncclCollNetPlugin", "Plugin load"})) {
    return true;
  }
  if (Has(text, "NCCL_") && AnyOf(text, {"Invalid value", "invalid value", "using default",
                                         "Ignoring", "ignoring", "ignored"})) {
    return true;
  }
  return false;
}

const char* NcclWarnOp(std::string_view text) {
  if (IsBenignNcclWarn(text)) return kNcclBenign;
  const char* cls = NcclClassOf(text);
  return cls ? cls : kNcclWarnOther;
}

std::string_view NcclPeer(std::string_view text) {
  // "addr<port>": NCCL's socket address format.
  for (size_t lt = text.find('<'); lt != npos; lt = text.find('<', lt + 1)) {
    size_t end = lt + 1;
    while (end < text.size() && scan::IsDigit(text[end])) ++end;
    if (end == lt + 1 || !scan::At(text, end, '>')) continue;
    size_t start = lt;
    while (start > 0 &&
           (IsHostChar(text[start - 1]) || text[start - 1] == '[' || text[start - 1] == ']')) {
      --start;
    }
    if (start < lt) return text.substr(start, end + 1 - start);
  }
  // "peer 10.0.0.2" with no port.
  for (size_t at = text.find("peer "); at != npos; at = text.find("peer ", at + 5)) {
    size_t i = at + 5;
    const size_t start = i;
    while (i < text.size() && IsHostChar(text[i])) ++i;
    std::string_view host = text.substr(start, i - start);
    while (!host.empty() && (host.back() == '.' || host.back() == ':')) host.remove_suffix(1);
    if (!host.empty() && (scan::IsDigit(host[0]) || Has(host, ".") || Has(host, "-"))) return host;
  }
  return {};
}

std::string_view NcclErrnoText(std::string_view text) {
  for (std::string_view e : kErrnoTexts) {
    if (const size_t at = text.find(e); at != npos) return text.substr(at, e.size());
  }
  for (std::string_view key : {"failed : ", "failed with error ", "failed: "}) {
    if (const size_t at = text.find(key); at != npos) {
      std::string_view rest = text.substr(at + key.size());
      rest = rest.substr(0, rest.find_first_of(",;("));
      while (!rest.empty() && (rest.back() == ' ' || rest.back() == '.')) rest.remove_suffix(1);
      return ClipText(rest, 80);
    }
  }
  return {};
}

NcclVersion ParseNcclVersion(std::string_view text) {
  NcclVersion v;
  const size_t at = text.find("NCCL version ");
  if (at == npos) return v;
  size_t i = at + 13;
  const size_t start = i;
  while (i < text.size() && (scan::IsDigit(text[i]) || text[i] == '.')) ++i;
  std::string_view version = text.substr(start, i - start);
  while (!version.empty() && version.back() == '.') version.remove_suffix(1);
  if (version.empty() || !scan::IsDigit(version[0]) || !Has(version, ".")) return v;
  v.version = version;
  if (text.substr(i, 5) == "+cuda") {
    const size_t c = i + 5;
    size_t j = c;
    while (j < text.size() && (scan::IsDigit(text[j]) || text[j] == '.')) ++j;
    std::string_view cuda = text.substr(c, j - c);
    while (!cuda.empty() && cuda.back() == '.') cuda.remove_suffix(1);
    v.cuda = cuda;
  }
  return v;
}

std::string_view TransportOf(std::string_view via) {
  auto word_end = [&](size_t from, bool spaces) {
    size_t i = from;
    while (i < via.size() && via[i] != '/' && via[i] != '(' && via[i] != '[' &&
           (spaces || via[i] != ' ') && i - from < 32) {
      ++i;
    }
    while (i > from && via[i - 1] == ' ') --i;
    return i;
  };
  if (via.starts_with("P2P/")) {
    const size_t end = word_end(4, false);
    return end == 4 ? via.substr(0, 3) : via.substr(0, end);
  }
  if (via.starts_with("NET/")) {
    // A plugin's name may hold a blank ("AWS Libfabric").
    const size_t end = word_end(4, true);
    return end == 4 ? via.substr(0, 3) : via.substr(0, end);
  }
  for (std::string_view word : {"SHM", "COLLNET", "NVLS"}) {
    if (via.starts_with(word)) return via.substr(0, word.size());
  }
  size_t i = 0;
  while (i < via.size() && (scan::IsUpper(via[i]) || scan::IsDigit(via[i]))) ++i;
  if (i == 0 || (i < via.size() && via[i] != '/' && via[i] != ' ')) return {};
  return via.substr(0, i);
}

std::string_view ClipText(std::string_view s, size_t max) {
  if (s.size() > max) {
    size_t n = max;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
    s = s.substr(0, n);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace casefile::dist
