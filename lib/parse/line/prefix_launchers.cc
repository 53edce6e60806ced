// Recognisers for the prefixes that launchers, collectors and viewers put in
// front of a program's own line: they say where it ran (rank, host, pid),
// rarely when.
#include <cstring>

#include "parse/line/ansi.h"
#include "parse/line/prefix_wrappers.h"
#include "parse/line/scan.h"
#include "parse/line/timestamp.h"

namespace casefile::prefix {
namespace {

using scan::At;
using scan::IsAlnum;
using scan::IsDigit;
using scan::LiteralAt;
using scan::ReadUint;

constexpr size_t kMaxHost = 253;     // DNS name limit
constexpr size_t kMaxRank = 7;       // digits of a rank or task id
constexpr size_t kMaxPid = 10;       // digits of a pid or thread id
constexpr size_t kMaxBarScan = 512;  // bytes searched for a progress bar's "%|"

bool IsHostChar(char c) { return IsAlnum(c) || c == '-' || c == '.'; }

size_t SkipOneSpace(std::string_view s, size_t i) { return At(s, i, ' ') ? i + 1 : i; }

// Source-file extensions that make "train.py: error: …" a message, not a host.
bool HasFileExtension(std::string_view token) {
  static constexpr std::string_view kExts[] = {"py",  "cc",  "cpp",  "cu",  "h",  "hpp",
                                               "c",   "sh",  "so",   "js",  "go", "rs",
                                               "log", "txt", "json", "yaml"};
  const size_t dot = token.rfind('.');
  if (dot == std::string_view::npos) return false;
  const std::string_view ext = token.substr(dot + 1);
  for (auto e : kExts) {
    if (ext == e) return true;
  }
  return false;
}

// Programs whose own messages read like "host: message" ("python3: can't
// open file", "collect2: error: ld returned 1", "gcc-12: error: …",
// "slurmstepd-gpu017: error: …"), named by their leading letters.
bool IsProgramName(std::string_view token) {
  static constexpr std::string_view kPrograms[] = {
      "python", "gcc", "clang", "nvcc", "ld",   "collect", "ninja",      "make",     "cmake",
      "bash",   "sh",  "perl",  "pip",  "srun", "mpirun",  "slurmstepd", "torchrun", "deepspeed"};
  size_t letters = 0;
  while (letters < token.size() && scan::IsAlpha(token[letters])) ++letters;
  const std::string_view lead = token.substr(0, letters);
  for (auto program : kPrograms) {
    if (lead == program) return true;
  }
  return token.starts_with("cc1");  // cc1, cc1plus
}

// A pdsh host label: starts and ends with a letter or digit, holds a digit or
// a '-' (so "Error", "INFO", "Traceback" are not hosts), is not a file name
// ("train.py: error: …") nor a known program. Letters-only dotted names are
// refused too: "torch.distributed.run: " is far more often a Python module
// than a host.
bool LooksLikeHost(std::string_view token) {
  if (token.empty() || !IsAlnum(token.front()) || !IsAlnum(token.back())) return false;
  bool digit = false, dash = false;
  for (char c : token) {
    digit |= IsDigit(c);
    dash |= c == '-';
  }
  if (!digit && !dash) return false;
  return !HasFileExtension(token) && !IsProgramName(token);
}

// "host:pid:tid [dev] " (NCCL INFO/WARN/TRACE) or "host:pid:tid NCCL CALL".
// The message starts at "NCCL": what sits between the device and it (the
// file:line of a WARN, the time and function of a TRACE) is skipped, so every
// NCCL message reads "NCCL <LEVEL> …".
bool MatchNccl(std::string_view line, size_t host_end, size_t pos, Wrapper& w) {
  uint64_t pid, tid, dev;
  size_t i = host_end + 1;
  size_t n = ReadUint(line, i, kMaxPid, &pid);
  if (n == 0 || !At(line, i + n, ':')) return false;
  i += n + 1;
  n = ReadUint(line, i, kMaxPid, &tid);
  if (n == 0 || !At(line, i + n, ' ')) return false;
  i += n + 1;
  w.host = line.substr(pos, host_end - pos);
  w.pid = static_cast<int64_t>(pid);
  w.kind = kWrapNcclHost;
  if (At(line, i, '[')) {
    n = ReadUint(line, i + 1, 4, &dev);
    if (n == 0 || !At(line, i + 1 + n, ']')) return false;
    w.device = static_cast<int32_t>(dev);
    i = SkipOneSpace(line, i + 2 + n);
  } else if (!LiteralAt(line, i, "NCCL ")) {
    return false;  // without a device only the "NCCL CALL" form is known
  }
  // Up to three blank-separated tokens before "NCCL <LEVEL>".
  size_t t = i;
  for (int skipped = 0; skipped <= 3 && t < line.size(); ++skipped) {
    if (LiteralAt(line, t, "NCCL ")) {
      const std::string_view word = line.substr(t + 5, 5);
      if (word.starts_with("INFO")) {
        w.level = Level::kInfo;
      } else if (word.starts_with("WARN")) {
        w.level = Level::kWarning;
      } else if (word.starts_with("TRACE") || word.starts_with("CALL")) {
        w.level = Level::kTrace;
      }
      i = t;
      break;
    }
    const size_t sp = line.find(' ', t);
    if (sp == std::string_view::npos || sp - t > 256) break;
    t = sp + 1;
  }
  w.end = i;
  return true;
}

}  // namespace

bool MatchViewerLineNo(std::string_view line, size_t pos, const TimeContext&, Wrapper& w) {
  uint64_t v;
  const size_t n = ReadUint(line, pos + 1, 12, &v);
  if (!At(line, pos, '[') || n == 0 || !At(line, pos + 1 + n, ']') || !At(line, pos + 2 + n, ' ')) {
    return false;
  }
  w.kind = kWrapViewerLineNo;
  w.end = pos + 3 + n;
  return true;
}

bool MatchSrunLabel(std::string_view line, size_t pos, const TimeContext&, Wrapper& w) {
  // srun -l right-aligns the task id to the width of the largest one.
  const size_t i = scan::SkipSpaces(line, pos);
  if (i - pos > 8) return false;
  uint64_t task;
  const size_t n = ReadUint(line, i, kMaxRank, &task);
  if (n == 0 || !At(line, i + n, ':') || !At(line, i + n + 1, ' ')) return false;
  w.kind = kWrapSrunLabel;
  w.rank = static_cast<int32_t>(task);
  w.end = i + n + 2;
  return true;
}

bool MatchMpirun(std::string_view line, size_t pos, const TimeContext&, Wrapper& w) {
  // "[jobid,rank]<stdout>:" (Open MPI --tag-output); the message follows at once.
  uint64_t job, rank;
  size_t i = pos + 1;
  size_t n = ReadUint(line, i, 10, &job);
  if (n == 0 || !At(line, i + n, ',')) return false;
  i += n + 1;
  n = ReadUint(line, i, kMaxRank, &rank);
  if (n == 0 || !At(line, i + n, ']')) return false;
  i += n + 1;
  for (std::string_view tag : {"<stdout>:", "<stderr>:", "<stddiag>:"}) {
    if (LiteralAt(line, i, tag)) {
      w.kind = kWrapMpirun;
      w.rank = static_cast<int32_t>(rank);
      w.end = i + tag.size();
      return true;
    }
  }
  return false;
}

bool MatchTorchRank(std::string_view line, size_t pos, const TimeContext&, Wrapper& w) {
  // "[rank3]:" (torch) or "[<role>3]:" (torchrun --tee/--redirects). Two
  // letters at least, so "[E1218]:" is not a role. torch writes
  // "[rank0]: Traceback" with a space that is not the message's: Python's
  // "  File" lines appear as "[rank0]:   File". torchrun adds no space.
  //
  // torchrun's N is the LOCAL rank: torch/distributed/elastic/multiprocessing/
  // tail_log.py (TailLog.start) writes header = f"[{self._name}{local_rank}]:"
  // for each entry of its {local_rank: file} map, name = WorkerSpec.role,
  // whose default is "default" (torch/distributed/run.py, --role); the
  // LocalElasticAgent docstring (agent/server/local_elastic_agent.py) says
  // the same: "[${role_name}${local_rank}]:". Two hosts both print
  // "[default0]:", so only "rank" gives a global rank.
  size_t i = pos + 1;
  while (i < line.size() && i - pos <= 32 && (scan::IsAlpha(line[i]) || line[i] == '_')) ++i;
  const size_t letters = i - pos - 1;
  if (letters < 2 || i - pos > 32) return false;
  uint64_t rank;
  const size_t n = ReadUint(line, i, kMaxRank, &rank);
  if (n == 0 || !At(line, i + n, ']') || !At(line, i + n + 1, ':')) return false;
  w.kind = kWrapTorchRank;
  w.end = i + n + 2;
  if (line.substr(pos + 1, letters) == "rank") {
    w.rank = static_cast<int32_t>(rank);
    w.end = SkipOneSpace(line, w.end);
  } else {
    w.local_rank = static_cast<int32_t>(rank);
  }
  return true;
}

bool MatchKubectlPod(std::string_view line, size_t pos, const TimeContext&, Wrapper& w) {
  // "[pod/llm-jobset-slice-job-0-0-d4f1x/jax-tpu] ": the pod stands for the
  // host its container ran on, as pdsh's "host: " does.
  if (!LiteralAt(line, pos, "[pod/")) return false;
  const size_t name = pos + 5;
  size_t i = name;
  while (i < line.size() && i - name <= kMaxHost && IsHostChar(line[i])) ++i;
  if (i == name || i - name > kMaxHost || !At(line, i, '/')) return false;
  size_t j = i + 1;
  while (j < line.size() && j - i <= kMaxHost && IsHostChar(line[j])) ++j;
  if (j == i + 1 || !At(line, j, ']') || !At(line, j + 1, ' ')) return false;
  w.kind = kWrapPdshHost;
  w.host = line.substr(name, i - name);
  w.end = j + 2;
  return true;
}

bool MatchRay(std::string_view line, size_t pos, const TimeContext&, Wrapper& w) {
  // "(Name pid=N)", "(Name pid=N, ip=A)", "(pid=N)", "(raylet, ip=A)"; the
  // closing parenthesis may be followed by a colour reset before the space.
  auto name_char = [](char c) {
    return IsAlnum(c) || c == '_' || c == '.' || c == ':' || c == '+' || c == '-';
  };
  size_t i = pos + 1;
  size_t j = i;
  while (j < line.size() && j - i <= 128 && name_char(line[j])) ++j;
  if (j - i > 128) return false;
  if (At(line, j, ' ')) {
    i = j + 1;
  } else if (LiteralAt(line, j, ", ")) {
    i = j + 2;
  } else if (!At(line, j, '=')) {
    return false;
  }
  bool said = false;
  for (int items = 0; items < 8; ++items) {
    size_t k = i;
    while (k < line.size() && (scan::IsLower(line[k]) || line[k] == '_')) ++k;
    if (k == i || !At(line, k, '=')) return false;
    const std::string_view key = line.substr(i, k - i);
    size_t v = k + 1;
    while (v < line.size() && v - k <= 64 && name_char(line[v])) ++v;
    if (v == k + 1) return false;
    const std::string_view value = line.substr(k + 1, v - k - 1);
    if (key == "pid") {
      uint64_t pid;
      if (ReadUint(value, 0, kMaxPid, &pid) != value.size()) return false;
      w.pid = static_cast<int64_t>(pid);
      said = true;
    } else if (key == "ip") {
      w.host = value;
      said = true;
    }
    if (At(line, v, ')')) {
      if (!said) return false;
      size_t e = v + 1;
      for (size_t len; e < line.size() && (len = AnsiSequenceAt(line, e)) != 0;) e += len;
      w.kind = kWrapRay;
      w.end = SkipOneSpace(line, e);
      return true;
    }
    if (LiteralAt(line, v, ", ")) {
      i = v + 2;
    } else if (At(line, v, ' ')) {
      i = v + 1;
    } else {
      return false;
    }
  }
  return false;
}

bool MatchHostPrefix(std::string_view line, size_t pos, const TimeContext&, Wrapper& w) {
  size_t i = pos;
  while (i < line.size() && i - pos <= kMaxHost && IsHostChar(line[i])) ++i;
  if (i == pos || i - pos > kMaxHost || !At(line, i, ':')) return false;
  if (i + 1 < line.size() && IsDigit(line[i + 1])) return MatchNccl(line, i, pos, w);
  // pdsh: "host: message".
  if (!At(line, i + 1, ' ') || !LooksLikeHost(line.substr(pos, i - pos))) return false;
  w.kind = kWrapPdshHost;
  w.host = line.substr(pos, i - pos);
  w.end = i + 2;
  return true;
}

bool MatchCloudExportBar(std::string_view line, size_t pos, const TimeContext&, Wrapper& w) {
  // "  | 2024-05-01T12:00:00.000Z | message" (a console table of exported logs).
  size_t i = scan::SkipSpaces(line, pos);
  if (i - pos > 8 || !LiteralAt(line, i, "| ")) return false;
  i += 2;
  const ParsedTime t = ParseIsoTime(line.substr(i));
  if (t.consumed == 0) return false;
  size_t j = scan::SkipSpaces(line, i + t.consumed);
  if (!At(line, j, '|')) return false;
  w.kind = kWrapCloudExport;
  w.ts_us = t.us;
  w.end = SkipOneSpace(line, j + 1);
  return true;
}

bool MatchCloudExportLevel(std::string_view line, size_t pos, const TimeContext&, Wrapper& w) {
  // "ERROR 2024-05-01T12:00:00Z [resource.labels.instance_id=i-1] message":
  // severity, RFC 3339 time, an optional bracket of labels.
  Level level;
  const size_t n = LevelWordAt(line, pos, &level);
  if (n == 0 || !At(line, pos + n, ' ')) return false;
  const size_t i = pos + n + 1;
  if (!At(line, i + 10, 'T')) return false;
  const ParsedTime t = ParseIsoTime(line.substr(i));
  if (t.consumed == 0) return false;
  size_t j = i + t.consumed;
  if (j < line.size() && line[j] != ' ') return false;
  j = SkipOneSpace(line, j);
  if (At(line, j, '[')) {
    const size_t close = line.find(']', j);
    if (close != std::string_view::npos && close - j <= 1024) {
      const std::string_view labels = line.substr(j + 1, close - j - 1);
      if (labels.find('=') != std::string_view::npos &&
          labels.find(' ') == std::string_view::npos) {
        j = SkipOneSpace(line, close + 1);
      }
    }
  }
  w.kind = kWrapCloudExport;
  w.level = level;
  w.ts_us = t.us;
  w.end = j;
  return true;
}

bool MatchProgressBar(std::string_view line, size_t pos, const TimeContext& ctx, Wrapper& w) {
  // A tqdm bar, "desc: 50%|█████     | 5/10 [00:03<00:03, 1.57it/s]", with a
  // torch header glued to its closing bracket (no newline between them). The
  // bar alone is a message, so it is stripped only when a header follows.
  const size_t limit = line.size() - pos > kMaxBarScan ? pos + kMaxBarScan : line.size();
  size_t i = pos;
  size_t bar = std::string_view::npos;
  while (i < limit) {
    const auto* p = static_cast<const char*>(std::memchr(line.data() + i, '%', limit - i));
    if (!p) return false;
    i = static_cast<size_t>(p - line.data());
    if (At(line, i + 1, '|')) {
      bar = i + 2;
      break;
    }
    ++i;
  }
  if (bar == std::string_view::npos) return false;
  const size_t bar_end = line.find("| ", bar);
  if (bar_end == std::string_view::npos || bar_end > limit) return false;
  const size_t open = line.find('[', bar_end);
  const size_t lt = line.find('<', bar_end);
  const size_t close = line.find(']', bar_end);
  if (open == std::string_view::npos || close == std::string_view::npos ||
      lt == std::string_view::npos || !(open < lt && lt < close) || close - bar_end > 160) {
    return false;
  }
  const size_t next = close + 1;
  if (!At(line, next, '[')) return false;
  Wrapper probe;
  if (!MatchGlogBracketed(line, next, ctx, probe) && !MatchTorchRank(line, next, ctx, probe)) {
    return false;
  }
  w.kind = kWrapProgressBar;
  w.end = next;
  return true;
}

}  // namespace casefile::prefix
