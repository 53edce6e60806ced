#include "parse/classify/content_sniff.h"

#include <cstdint>
#include <vector>

#include "parse/classify/name_util.h"

namespace casefile::classify_internal {
namespace {

// Markers must appear this early; a log that prints a version banner deep
// inside stays a log.
constexpr size_t kSniffBytes = 8 * 1024;
constexpr size_t kBannerLines = 8;

std::string_view SkipBom(std::string_view s) {
  if (s.size() >= 3 && s.substr(0, 3) == "\xEF\xBB\xBF") s.remove_prefix(3);
  return s;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f'; }

std::string_view TrimLeftWs(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && IsSpace(s[i])) ++i;
  return s.substr(i);
}

std::string_view Trim(std::string_view s) {
  s = TrimLeftWs(s);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool Contains(std::string_view s, std::string_view needle) {
  return s.find(needle) != std::string_view::npos;
}

// The first `max_lines` non-blank lines within kSniffBytes, trimmed.
std::vector<std::string_view> FirstLines(std::string_view head, size_t max_lines) {
  std::vector<std::string_view> lines;
  head = SkipBom(head.substr(0, kSniffBytes));
  size_t pos = 0;
  while (pos < head.size() && lines.size() < max_lines) {
    size_t end = head.find('\n', pos);
    if (end == std::string_view::npos) end = head.size();
    std::string_view line = Trim(head.substr(pos, end - pos));
    if (!line.empty()) lines.push_back(line);
    pos = end + 1;
  }
  return lines;
}

bool IsDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsAsciiDigit(c)) return false;
  }
  return true;
}

// "<3>" (dmesg -r): a syslog priority, facility * 8 + level, at most 191.
std::string_view SkipPriority(std::string_view line) {
  if (line.size() < 3 || line[0] != '<') return line;
  size_t close = line.find('>');
  if (close < 2 || close > 4 || !IsDigits(line.substr(1, close - 1))) return line;
  return line.substr(close + 1);
}

// "[  518.050606] " — seconds since boot, right-aligned, six decimals.
bool IsRawDmesgLine(std::string_view line) {
  line = SkipPriority(line);
  if (line.size() < 10 || line[0] != '[') return false;
  size_t close = line.find(']');
  if (close == std::string_view::npos || close > 20) return false;
  std::string_view inside = Trim(line.substr(1, close - 1));
  size_t dot = inside.find('.');
  return dot != std::string_view::npos && IsDigits(inside.substr(0, dot)) &&
         inside.size() - dot - 1 == 6 && IsDigits(inside.substr(dot + 1));
}

bool IsWeekday(std::string_view s) {
  static constexpr const char* kDays[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
  for (const char* d : kDays) {
    if (s == d) return true;
  }
  return false;
}

bool IsMonth(std::string_view s) {
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (const char* m : kMonths) {
    if (s == m) return true;
  }
  return false;
}

// "[Sun Mar 30 08:24:00 2025] " from dmesg -T.
bool IsHumanDmesgLine(std::string_view line) {
  return line.size() > 26 && line[0] == '[' && IsWeekday(line.substr(1, 3)) && line[4] == ' ' &&
         IsMonth(line.substr(5, 3)) && line[25] == ']';
}

// "2024-04-29T14:55:41,679700+02:00 " from dmesg --time-format iso (comma
// decimal and a zone: ordinary ISO log stamps use a dot).
bool IsIsoDmesgLine(std::string_view line) {
  return line.size() > 32 && IsDigits(line.substr(0, 4)) && line[4] == '-' && line[10] == 'T' &&
         line[13] == ':' && line[19] == ',' && IsDigits(line.substr(20, 6)) &&
         (line[26] == '+' || line[26] == '-');
}

// "May 15 23:09:30 host kernel: " (syslog/journal), or with an RFC 3339
// time "2024-05-01T12:00:00.123456+00:00 host kernel: " (rsyslog's file
// format, journalctl -o short-iso).
bool IsSyslogKernelLine(std::string_view line) {
  const bool bsd =
      line.size() >= 16 && IsMonth(line.substr(0, 3)) && line[3] == ' ' && line.find(':') <= 12;
  const bool rfc3339 = line.size() >= 20 && IsDigits(line.substr(0, 4)) && line[4] == '-' &&
                       line[7] == '-' && line[10] == 'T' && line[13] == ':';
  if (!bsd && !rfc3339) return false;
  size_t kernel = line.find(" kernel: ");
  return kernel != std::string_view::npos && kernel < 96;
}

// Above this share of non-text bytes (NUL and control) a head is binary.
constexpr size_t kMaxNonTextPercent = 30;

struct ByteCensus {
  size_t total = 0;
  size_t nul = 0;
  size_t control = 0;  // < 0x20 or 0x7f, except NUL, \t \n \r \f \v \b and ESC
};

ByteCensus CountBytes(std::string_view sample) {
  // Which bytes below 0x20 are text: tab, LF, VT, FF, CR, BS (terminal
  // output) and ESC (ANSI colours).
  constexpr uint32_t kTextControls = (1u << '\t') | (1u << '\n') | (1u << '\v') | (1u << '\f') |
                                     (1u << '\r') | (1u << '\b') | (1u << 0x1b);
  ByteCensus census;
  census.total = sample.size();
  for (unsigned char c : sample) {
    if (c == 0) {
      ++census.nul;
    } else if ((c < 0x20 && !(kTextControls & (1u << c))) || c == 0x7f) {
      ++census.control;
    }
  }
  return census;
}

// Signatures of formats that are never text, whatever the file is named:
// compressed data left compressed, executables, images, pickles, arrays,
// databases.
bool HasBinaryMagic(std::string_view head) {
  static constexpr std::string_view kMagics[] = {
      std::string_view("\x1f\x8b", 2),          // gzip
      std::string_view("\x28\xb5\x2f\xfd", 4),  // zstd
      std::string_view("\xfd"
                       "7zXZ\x00",
                       6),                        // xz
      std::string_view("7z\xbc\xaf\x27\x1c", 6),  // 7-Zip
      std::string_view("PK\x03\x04", 4),          // zip (.npz, .pt)
      std::string_view("\x7f"
                       "ELF",
                       4),                          // ELF (.so, a.out)
      std::string_view("\x89PNG\r\n\x1a\n", 8),     // PNG
      std::string_view("\xff\xd8\xff", 3),          // JPEG
      std::string_view("\x93NUMPY", 6),             // .npy
      std::string_view("SQLite format 3\x00", 16),  // SQLite
  };
  for (std::string_view magic : kMagics) {
    if (StartsWith(head, magic)) return true;
  }
  // Pickle protocols 2 to 5 open with PROTO <n> (torch.save, the NCCL
  // flight recorder's dumps).
  if (head.size() >= 2 && head[0] == '\x80' && head[1] >= 2 && head[1] <= 5) return true;
  // bzip2: "BZh", the block size '1'..'9', then the block magic (pi).
  return head.size() >= 10 && StartsWith(head, "BZh") && head[3] >= '1' && head[3] <= '9' &&
         head.substr(4, 6) == "\x31\x41\x59\x26\x53\x59";
}

// `quoted_key` followed by blanks and ':' somewhere in `s`.
bool HasJsonKey(std::string_view s, std::string_view quoted_key) {
  for (size_t pos = s.find(quoted_key); pos != std::string_view::npos;
       pos = s.find(quoted_key, pos + 1)) {
    std::string_view rest = TrimLeftWs(s.substr(pos + quoted_key.size()));
    if (!rest.empty() && rest[0] == ':') return true;
  }
  return false;
}

bool IsPipFreezeLine(std::string_view line) {
  if (line[0] == '#') return true;
  if (StartsWith(line, "-e ")) return true;
  size_t eq = line.find("==");
  size_t at = line.find(" @ ");
  size_t sep = eq != std::string_view::npos ? eq : at;
  if (sep == std::string_view::npos || sep == 0) return false;
  for (char c : line.substr(0, sep)) {
    if (!IsAsciiAlnum(c) && c != '-' && c != '_' && c != '.' && c != '[' && c != ']' && c != ',') {
      return false;
    }
  }
  return true;
}

}  // namespace

bool LooksBinary(std::string_view head, NameHint hint) {
  if (head.empty()) return hint == NameHint::kBinaryLike;
  if (HasBinaryMagic(head)) return true;
  const ByteCensus census = CountBytes(head.substr(0, kBinarySniffBytes));
  switch (hint) {
    case NameHint::kBinaryLike:
      // Serialized data has no magic of its own (protobuf, raw arrays) but
      // almost always holds small varints and lengths; a text file misnamed
      // .bin has none and falls through to the log rules.
      return census.nul + census.control > 0;
    case NameHint::kTextLike:
      // NUL runs are what a crash or power loss leaves in a log (zeroed
      // blocks), not a sign of binary content: only the other bytes vote.
      return census.control * 100 > (census.total - census.nul) * kMaxNonTextPercent;
    case NameHint::kNeutral:
      break;
  }
  return (census.nul + census.control) * 100 > census.total * kMaxNonTextPercent;
}

bool LooksLikeHlo(std::string_view head) {
  std::vector<std::string_view> lines = FirstLines(head, 1);
  return !lines.empty() && StartsWith(lines[0], "HloModule ");
}

bool LooksLikeTrace(std::string_view head) {
  std::string_view s = TrimLeftWs(SkipBom(head));
  if (s.empty()) return false;
  auto has_key = [&](std::string_view quoted_key) {
    for (size_t pos = s.find(quoted_key); pos != std::string_view::npos;
         pos = s.find(quoted_key, pos + 1)) {
      std::string_view rest = TrimLeftWs(s.substr(pos + quoted_key.size()));
      if (!rest.empty() && rest[0] == ':') return true;
    }
    return false;
  };
  if (s[0] == '{') {
    return has_key("\"traceEvents\"") || has_key("\"displayTimeUnit\"") ||
           (has_key("\"schemaVersion\"") && has_key("\"deviceProperties\""));
  }
  if (s[0] == '[') {
    std::string_view rest = TrimLeftWs(s.substr(1));
    if (rest.empty() || rest[0] != '{') return false;
    // Events are small and "ph" comes early in them, so the first 4 KiB
    // decide; a list of records without "ph" is a config.
    s = rest.substr(0, 4096);
    return has_key("\"ph\"");
  }
  return false;
}

bool LooksLikeFlightRecorder(std::string_view head, bool dump_name) {
  if (head.size() >= 2 && head[0] == '\x80' && head[1] >= 2 && head[1] <= 5) {
    // Pickled keys are length-prefixed strings: search them bare.
    return Contains(head, "pg_config") || Contains(head, "pg_status") ||
           (Contains(head, "entries") &&
            (Contains(head, "collective_seq_id") || Contains(head, "profiling_name")));
  }
  std::string_view s = TrimLeftWs(SkipBom(head));
  if (s.empty() || s[0] != '{' || LooksLikeTrace(head)) return false;
  if (dump_name) return true;
  return HasJsonKey(s, "\"pg_config\"") || HasJsonKey(s, "\"pg_status\"") ||
         (HasJsonKey(s, "\"entries\"") &&
          (HasJsonKey(s, "\"collective_seq_id\"") || HasJsonKey(s, "\"profiling_name\"")));
}

bool LooksLikeJsonDocument(std::string_view head) {
  std::string_view s = TrimLeftWs(SkipBom(head));
  return s.empty() || s[0] == '{' || s[0] == '[';
}

bool LooksLikeVersionReport(std::string_view head) {
  std::vector<std::string_view> lines = FirstLines(head, kBannerLines);
  if (lines.empty()) return false;
  bool torch_version = false, torch_detail = false, jax = false, jaxlib = false;
  for (std::string_view line : lines) {
    if (StartsWith(line, "Collecting environment information")) return true;
    if (StartsWith(line, "PyTorch version:")) torch_version = true;
    if (StartsWith(line, "Is debug build:") || StartsWith(line, "CUDA used to build PyTorch:")) {
      torch_detail = true;
    }
    if (line[0] == '|' && Contains(line, "NVIDIA-SMI ")) return true;
    if (Contains(line, "NVSMI LOG")) return true;
    if (StartsWith(line, "nvcc: NVIDIA (R) Cuda compiler driver")) return true;
    if (Contains(line, "DeepSpeed general environment info") ||
        Contains(line, "DeepSpeed C++/CUDA extension op report")) {
      return true;
    }
    if (StartsWith(line, "jax:")) jax = true;
    if (StartsWith(line, "jaxlib:")) jaxlib = true;
    if (StartsWith(line, "Copy-and-paste the text below in your GitHub issue") ||
        StartsWith(line, "- `transformers` version:")) {
      return true;
    }
  }
  if (torch_version && torch_detail) return true;
  if (jax && jaxlib) return true;
  // gcc --version: "gcc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0" then Copyright.
  if (lines.size() >= 2 && StartsWith(lines[1], "Copyright") &&
      (StartsWith(lines[0], "gcc") || StartsWith(lines[0], "g++") || StartsWith(lines[0], "cc ")) &&
      Contains(lines[0], " (")) {
    return true;
  }
  // pip list: "Package    Version" over a dashes line.
  if (lines.size() >= 2 && StartsWith(lines[0], "Package ") && Contains(lines[0], " Version") &&
      StartsWith(lines[1], "---")) {
    return true;
  }
  // pip freeze: every line a requirement pin, at least two of them.
  size_t pins = 0;
  for (std::string_view line : lines) {
    if (!IsPipFreezeLine(line)) return false;
    if (line[0] != '#') ++pins;
  }
  return pins >= 2;
}

bool LooksLikeSysinfo(std::string_view head) {
  std::vector<std::string_view> lines = FirstLines(head, 1);
  if (lines.empty()) return false;
  std::string_view line = lines[0];
  if (IsRawDmesgLine(line) || IsHumanDmesgLine(line) || IsIsoDmesgLine(line) ||
      IsSyslogKernelLine(line)) {
    return true;
  }
  if (StartsWith(line, "MemTotal:") || StartsWith(line, "Architecture:")) return true;
  if (StartsWith(line, "Filesystem ") && (Contains(line, " Size") || Contains(line, "1K-blocks"))) {
    return true;
  }
  if (StartsWith(line, "total ") && Contains(line, " used ") && Contains(line, " free"))
    return true;
  return Contains(line, "(blocks, -c)") || Contains(line, "(microseconds, -R)");
}

}  // namespace casefile::classify_internal
