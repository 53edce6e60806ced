#include "parse/classify/classify.h"

#include <string>

#include "parse/classify/content_sniff.h"
#include "parse/classify/name_util.h"
#include "parse/config/config_parser.h"

namespace casefile {
namespace {

using classify_internal::AsciiLowerCopy;
using classify_internal::BaseName;
using classify_internal::IsAsciiDigit;
using classify_internal::SplitPath;
using classify_internal::StartsWithWord;
using classify_internal::StripGz;

static_assert(classify_internal::kBinarySniffBytes == kClassifyHeadBytes,
              "the binary rule is documented over the whole classified head");

// Indexed by FileKind.
constexpr std::string_view kKindNames[] = {
    "log",     "hlo",      "trace",  "config", "version",
    "sysinfo", "manifest", "binary", "other",  "flight_recorder"};
static_assert(std::size(kKindNames) == static_cast<size_t>(FileKind::kFlightRecorder) + 1,
              "one name per FileKind");

// The parts of a path the name rules look at, lower-cased, ".gz" removed.
struct NameParts {
  std::string base;               // "nvidia_smi.txt": '-' and ' ' read as '_'
  std::string ext;                // ".txt"; "" when none; a rotation ".1" skipped
  std::vector<std::string> dirs;  // directory components
};

NameParts SplitName(std::string_view path) {
  NameParts parts;
  std::string lower = AsciiLowerCopy(StripGz(path));
  std::vector<std::string_view> comps = SplitPath(lower);
  if (!comps.empty()) {
    for (size_t i = 0; i + 1 < comps.size(); ++i) parts.dirs.emplace_back(comps[i]);
  }
  parts.base = std::string(BaseName(lower));
  for (char& c : parts.base) {
    if (c == '-' || c == ' ') c = '_';
  }
  std::string_view base = parts.base;
  // "kern.log.1", "syslog.2": the rotation number is not the extension.
  size_t dot = base.rfind('.');
  if (dot != std::string_view::npos && dot > 0) {
    std::string_view tail = base.substr(dot + 1);
    bool numeric = !tail.empty();
    for (char c : tail) numeric = numeric && IsAsciiDigit(c);
    if (numeric) {
      base = base.substr(0, dot);
      dot = base.rfind('.');
    }
  }
  if (dot != std::string_view::npos && dot > 0) parts.ext = std::string(base.substr(dot));
  return parts;
}

bool StemIs(const NameParts& n, std::string_view stem) {
  std::string_view base = n.base;
  if (base.substr(0, stem.size()) != stem) return false;
  return base.size() == stem.size() || base[stem.size()] == '.';
}

bool HasDir(const NameParts& n, std::initializer_list<std::string_view> names) {
  for (const std::string& d : n.dirs) {
    for (std::string_view name : names) {
      if (d == name) return true;
    }
  }
  return false;
}

bool BaseStartsWithAnyWord(const NameParts& n, std::initializer_list<std::string_view> words) {
  for (std::string_view w : words) {
    if (StartsWithWord(n.base, w)) return true;
  }
  return false;
}

bool ExtIsAny(const NameParts& n, std::initializer_list<std::string_view> exts) {
  for (std::string_view e : exts) {
    if (n.ext == e) return true;
  }
  return false;
}

bool IsBinaryName(const NameParts& n) {
  return ExtIsAny(
      n, {".pb", ".pkl", ".pickle", ".pt", ".pth", ".bin", ".safetensors", ".npy", ".npz", ".so",
          ".o", ".zst", ".xz", ".bz2", ".png", ".jpg", ".pftrace", ".perfetto_trace"});
}

// Names under which logs are written; a NUL byte in such a file is damage,
// not a sign of binary content (classify.h rule 2).
bool IsTextLikeName(const NameParts& n) {
  if (ExtIsAny(n, {".log", ".txt", ".out", ".err", ".stdout", ".stderr"})) return true;
  if (StemIs(n, "stdout") || StemIs(n, "stderr")) return true;
  return n.ext.empty() && HasDir(n, {"logs", "log"});
}

classify_internal::NameHint HintFor(const NameParts& n) {
  using classify_internal::NameHint;
  if (IsBinaryName(n)) return NameHint::kBinaryLike;
  return IsTextLikeName(n) ? NameHint::kTextLike : NameHint::kNeutral;
}

// "nccl_trace_rank_<N>" or "rank_<N>" ('-' and ' ' read as '_') with an
// optional extension: the stem's tail after `prefix` is all digits.
bool StemIsNumbered(const NameParts& n, std::string_view prefix) {
  std::string_view stem = n.base;
  stem.remove_suffix(n.ext.size());
  if (stem.size() <= prefix.size() || stem.substr(0, prefix.size()) != prefix) return false;
  for (char c : stem.substr(prefix.size())) {
    if (!IsAsciiDigit(c)) return false;
  }
  return true;
}

// classify.h rule 1b.c.
bool IsFlightRecorderName(const NameParts& n) {
  if (!n.ext.empty() && !ExtIsAny(n, {".json", ".pkl", ".pickle"})) return false;
  if (StemIsNumbered(n, "nccl_trace_rank_")) return true;
  if (!StemIsNumbered(n, "rank_")) return false;
  for (const std::string& d : n.dirs) {
    if (d == "fr") return true;
    for (std::string_view part :
         {"flight_recorder", "flight-recorder", "flightrecorder", "fr_trace", "fr-trace",
          "comm_trace", "comm-trace", "nccl_trace", "nccl-trace"}) {
      if (d.find(part) != std::string::npos) return true;
    }
  }
  return false;
}

bool IsVersionName(const NameParts& n) {
  if (HasDir(n, {"versions", "version"})) return true;
  if (BaseStartsWithAnyWord(
          n, {"collect_env", "nvidia_smi", "ds_report", "pip_list", "pip_freeze", "conda_list",
              "jax_env", "jax_environment", "print_environment_info", "transformers_env",
              "transformers_cli_env", "env_report", "which_nvcc", "cuda_dirs", "cuda_toolkits",
              "ls_cuda"})) {
    return true;
  }
  return StemIs(n, "nvcc") || StemIs(n, "nvcc_version") || StemIs(n, "gcc") ||
         StemIs(n, "gcc_version");
}

bool IsSysinfoName(const NameParts& n) {
  if (HasDir(n, {"sysinfo", "system_info"})) return true;
  if (BaseStartsWithAnyWord(
          n,
          {"dmesg",   "kern.log", "syslog",  "journal",     "journalctl", "sysctl",  "ulimit",
           "free",    "df",       "meminfo", "cpuinfo",     "lscpu",      "lspci",   "lsblk",
           "numactl", "uname",    "ibstat",  "ibv_devinfo", "ifconfig",   "ip_addr", "sysinfo"})) {
    return true;
  }
  return StemIs(n, "messages");
}

}  // namespace

const char* FileKindName(FileKind kind) {
  size_t i = static_cast<size_t>(kind);
  return i < std::size(kKindNames) ? kKindNames[i].data() : "other";
}

std::optional<FileKind> FileKindFromName(std::string_view name) {
  for (size_t i = 0; i < std::size(kKindNames); ++i) {
    if (kKindNames[i] == name) return static_cast<FileKind>(i);
  }
  return std::nullopt;
}

FileKind ClassifyFile(std::string_view path, std::string_view head) {
  using namespace classify_internal;
  if (path == kManifestPath) return FileKind::kManifest;
  NameParts name = SplitName(path);
  if (LooksLikeFlightRecorder(head, IsFlightRecorderName(name))) return FileKind::kFlightRecorder;
  if (LooksBinary(head, HintFor(name))) return FileKind::kBinary;
  if (LooksLikeHlo(head)) return FileKind::kHlo;
  std::optional<ConfigFormat> config = ConfigFormatForName(path);
  bool json_name = config == ConfigFormat::kJson;
  if (json_name && LooksLikeTrace(head)) return FileKind::kTrace;
  if (LooksLikeVersionReport(head)) return FileKind::kVersion;
  if (LooksLikeSysinfo(head)) return FileKind::kSysinfo;
  if (IsVersionName(name)) return FileKind::kVersion;
  if (IsSysinfoName(name)) return FileKind::kSysinfo;
  if (json_name) return LooksLikeJsonDocument(head) ? FileKind::kConfig : FileKind::kLog;
  if (config) return FileKind::kConfig;
  if (ExtIsAny(name, {".html", ".htm", ".svg", ".dot", ".ll", ".ptx"})) return FileKind::kOther;
  return FileKind::kLog;
}

}  // namespace casefile
