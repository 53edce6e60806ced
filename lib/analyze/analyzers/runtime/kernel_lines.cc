#include "analyze/analyzers/runtime/kernel_lines.h"

#include <algorithm>

#include "parse/line/byte_search.h"

namespace casefile::runtime {
namespace {

constexpr size_t npos = std::string_view::npos;
// Longest process name kept (the kernel's comm is at most 15 bytes; a
// longer text between the parentheses is not a comm).
constexpr size_t kMaxComm = 64;
constexpr size_t kMaxXidText = 160;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Digits at s[i] (at most 12), into *v; the count read.
size_t ReadDigits(std::string_view s, size_t i, int64_t* v) {
  size_t n = 0;
  int64_t out = 0;
  while (i + n < s.size() && IsDigit(s[i + n]) && n < 12) {
    out = out * 10 + (s[i + n] - '0');
    ++n;
  }
  if (n == 0 || (i + n < s.size() && IsDigit(s[i + n]))) return 0;
  *v = out;
  return n;
}

// "60356340kB" and the pasted form "60,356,340kB": kilobytes, or -1.
int64_t KbAfter(std::string_view s, std::string_view key) {
  const size_t at = s.find(key);
  if (at == npos) return -1;
  int64_t v = 0;
  size_t i = at + key.size();
  size_t digits = 0;
  while (i < s.size() && (IsDigit(s[i]) || (s[i] == ',' && digits > 0)) && digits < 15) {
    if (s[i] != ',') {
      v = v * 10 + (s[i] - '0');
      ++digits;
    }
    ++i;
  }
  if (digits == 0 || s.substr(i, 2) != "kB") return -1;
  return v;
}

bool ContainsNoCase(std::string_view hay, std::string_view needle) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
  for (size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    size_t k = 0;
    while (k < needle.size() && lower(hay[i + k]) == lower(needle[k])) ++k;
    if (k == needle.size()) return true;
  }
  return false;
}

// "oom-kill" or "oom_kill" at or after `from`; npos when absent.
size_t FindOomKill(std::string_view msg, size_t from = 0) {
  for (size_t at = msg.find("oom", from); at != npos; at = msg.find("oom", at + 1)) {
    if (at + 8 <= msg.size() && (msg[at + 3] == '-' || msg[at + 3] == '_') &&
        msg.substr(at + 4, 4) == "kill") {
      return at;
    }
  }
  return npos;
}

std::optional<KernelLine> ParseVictim(std::string_view msg, size_t at) {
  // at: start of "Killed process "
  size_t i = at + 15;
  KernelLine k;
  k.kind = KernelLineKind::kOomVictim;
  const size_t n = ReadDigits(msg, i, &k.pid);
  if (n == 0) return std::nullopt;
  i += n;
  if (msg.substr(i, 2) != " (") return std::nullopt;
  i += 2;
  // The comm may hold spaces and parentheses: it ends at the ") " before
  // the counters ("total-vm:" today, "vsz:" on 2.6 kernels).
  size_t close = msg.find(") total-vm:", i);
  if (close == npos) close = msg.find(") vsz:", i);
  const std::string_view before = msg.substr(0, at);
  if (close == npos) {
    // Without its counters the line counts only after the kernel's own
    // words ("Out of memory: Killed process 1234 (python)").
    if (!ContainsNoCase(before, "out of memory")) return std::nullopt;
    close = msg.rfind(')');
    if (close == npos || close < i) return std::nullopt;
  }
  if (close - i > kMaxComm) return std::nullopt;
  k.comm = std::string(msg.substr(i, close - i));
  k.memcg = before.find("Memory cgroup") != npos || before.find("memory cgroup") != npos;
  k.anon_rss_kb = KbAfter(msg.substr(close), "anon-rss:");
  return k;
}

std::optional<KernelLine> ParseSummary(std::string_view msg, size_t at) {
  // "oom-kill:constraint=CONSTRAINT_MEMCG,...,task=python,pid=7899,uid=0"
  if (msg.substr(at, 20) != "oom-kill:constraint=") return std::nullopt;
  const std::string_view fields = msg.substr(at + 9);
  KernelLine k;
  k.kind = KernelLineKind::kOomSummary;
  k.memcg = fields.substr(11, 16) == "CONSTRAINT_MEMCG";
  if (const size_t t = fields.find(",task="); t != npos) {
    const size_t end = std::min(fields.find(",pid=", t + 6), fields.size());
    if (end - (t + 6) <= kMaxComm) k.comm = std::string(fields.substr(t + 6, end - t - 6));
  }
  if (const size_t p = fields.find(",pid="); p != npos) {
    if (ReadDigits(fields, p + 5, &k.pid) == 0) k.pid = -1;
  }
  return k;
}

std::optional<KernelLine> ParseTrigger(std::string_view msg) {
  constexpr std::string_view kInvoked = " invoked oom-killer: ";
  const size_t at = msg.find(kInvoked);
  if (at == npos || msg.find("gfp_mask=", at) == npos) return std::nullopt;
  KernelLine k;
  k.kind = KernelLineKind::kOomTrigger;
  const size_t start = msg.rfind(' ', at - 1);
  const std::string_view comm =
      msg.substr(start == npos ? 0 : start + 1, at - (start == npos ? 0 : start + 1));
  if (comm.size() <= kMaxComm) k.comm = std::string(comm);
  return k;
}

std::optional<KernelLine> ParseSlurm(std::string_view msg) {
  // "Detected 1 oom-kill event(s) in StepId=1234.0 cgroup.", "Detected 2
  // oom_kill events in StepId=...", "Some of the step tasks have been OOM
  // Killed."
  KernelLine k;
  k.kind = KernelLineKind::kSlurmOom;
  k.memcg = true;
  if (msg.find("tasks have been OOM Killed") != npos) return k;
  const size_t at = msg.find("Detected ");
  if (at == npos) return std::nullopt;
  int64_t count = 0;
  const size_t n = ReadDigits(msg, at + 9, &count);
  if (n == 0 || count <= 0) return std::nullopt;
  const std::string_view rest = msg.substr(at + 9 + n, 15);
  if (rest != " oom-kill event" && rest != " oom_kill event") return std::nullopt;
  return k;
}

std::optional<KernelLine> ParseXid(std::string_view msg, size_t at) {
  // at: start of "Xid ("
  size_t i = at + 5;
  if (msg.substr(i, 4) == "PCI:") i += 4;
  const size_t close = msg.find("): ", i);
  if (close == npos || close - i > 32 || close == i) return std::nullopt;
  KernelLine k;
  k.kind = KernelLineKind::kXid;
  k.pci = std::string(msg.substr(i, close - i));
  for (char c : k.pci) {
    const bool hex = IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    if (!hex && c != ':' && c != '.') return std::nullopt;
  }
  i = close + 3;
  int64_t code = 0;
  const size_t n = ReadDigits(msg, i, &code);
  if (n == 0 || code > 100000 || msg.substr(i + n, 1) != ",") return std::nullopt;
  k.xid = static_cast<int>(code);
  i += n + 1;
  // Fields the driver puts before its words: "pid=1234", "pid='<unknown>'",
  // "name=python".
  for (int field = 0; field < 2; ++field) {
    while (i < msg.size() && msg[i] == ' ') ++i;
    const std::string_view rest = msg.substr(i);
    if (!rest.starts_with("pid=") && !rest.starts_with("name=")) break;
    const size_t end = std::min(rest.find(','), rest.size());
    if (rest.starts_with("pid=")) {
      int64_t pid = 0;
      if (ReadDigits(rest, 4, &pid) > 0) k.pid = pid;
    } else if (end - 5 <= kMaxComm) {
      k.comm = std::string(rest.substr(5, end - 5));
    }
    i += end + (end < rest.size() ? 1 : 0);
  }
  while (i < msg.size() && msg[i] == ' ') ++i;
  std::string_view text = msg.substr(i);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\r')) text.remove_suffix(1);
  if (text.size() > kMaxXidText) {
    size_t cut = kMaxXidText;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text = text.substr(0, cut);
  }
  k.text = std::string(text);
  return k;
}

// Codes of NVIDIA's Xid catalog that training jobs meet; the words are
// ours.
constexpr XidInfo kXids[] = {
    {13, "graphics engine exception, usually a kernel's out-of-range access", false, true},
    {31, "GPU memory page fault: a kernel used an invalid address", false, true},
    {43, "the GPU stopped processing after the application's kernel faulted", false, true},
    {45, "clean-up after an earlier error", false, false},
    {48, "double-bit ECC memory error", true, true},
    {61, "internal micro-controller warning", true, true},
    {62, "internal micro-controller halt", true, true},
    {63, "ECC page retirement or row remapping recorded", true, false},
    {64, "ECC page retirement or row remapping failed", true, true},
    {74, "NVLink error", true, true},
    {79, "the GPU has fallen off the bus", true, true},
    {92, "high single-bit ECC error rate", true, false},
    {94, "contained ECC error", true, true},
    {95, "uncontained ECC error", true, true},
    {119, "GSP firmware RPC timeout", true, true},
    {120, "GSP firmware error", true, true},
};

}  // namespace

bool MayBeKernelEvent(std::string_view msg) {
  // One vector pass for the rare byte pairs "Ki" (Killed process, OOM
  // Killed), "Xi" (Xid), "-k" and "_k" (oom-kill, oom_kill), then a compare
  // at each hit: finding the four literals in turn meant a memchr() call per
  // 'o' of the line, and single bytes ('k') still hit in many lines.
  return scan::AnyOfFourPairs(msg, {'K', 'i'}, {'X', 'i'}, {'-', 'k'}, {'_', 'k'}, [&](size_t i) {
    switch (msg[i]) {
      case 'K':
        return scan::HasAt(msg, i, "Killed process") ||
               (i >= 4 && scan::HasAt(msg, i - 4, "OOM Killed"));
      case 'X':
        return scan::HasAt(msg, i, "Xid (");
      default:
        return i >= 3 &&
               (scan::HasAt(msg, i - 3, "oom-kill") || scan::HasAt(msg, i - 3, "oom_kill"));
    }
  });
}

std::optional<KernelLine> ParseKernelLine(std::string_view msg) {
  if (const size_t at = msg.find("Killed process "); at != npos) {
    if (auto k = ParseVictim(msg, at)) return k;
  }
  for (size_t at = FindOomKill(msg); at != npos; at = FindOomKill(msg, at + 1)) {
    if (auto k = ParseSummary(msg, at)) return k;
  }
  if (msg.find("invoked oom-killer") != npos) {
    if (auto k = ParseTrigger(msg)) return k;
  }
  if (msg.find("oom-kill event") != npos || msg.find("oom_kill event") != npos ||
      msg.find("OOM Killed") != npos) {
    if (auto k = ParseSlurm(msg)) return k;
  }
  if (const size_t at = msg.find("Xid ("); at != npos) {
    if (auto k = ParseXid(msg, at)) return k;
  }
  return std::nullopt;
}

const XidInfo* FindXid(int code) {
  for (const XidInfo& x : kXids) {
    if (x.code == code) return &x;
  }
  return nullptr;
}

}  // namespace casefile::runtime
