#include "parse/classify/content_sniff.h"

#include <cstring>
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

// "[  518.050606] " — seconds since boot, right-aligned, six decimals.
bool IsRawDmesgLine(std::string_view line) {
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

// "May 15 23:09:30 host kernel: " (syslog/journal).
bool IsSyslogKernelLine(std::string_view line) {
  if (line.size() < 16 || !IsMonth(line.substr(0, 3)) || line[3] != ' ') return false;
  size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon > 12) return false;
  size_t kernel = line.find(" kernel: ");
  return kernel != std::string_view::npos && kernel < 96;
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

bool LooksBinary(std::string_view head) {
  if (head.empty()) return false;
  if (std::memchr(head.data(), '\0', head.size()) != nullptr) return true;
  if (StartsWith(head, "\x1f\x8b") || StartsWith(head, "\x28\xb5\x2f\xfd")) return true;
  std::string_view sample = head.substr(0, kSniffBytes);
  size_t control = 0;
  for (unsigned char c : sample) {
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != '\b' &&
         c != 0x1b) ||
        c == 0x7f) {
      ++control;
    }
  }
  return control * 10 > sample.size();
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
