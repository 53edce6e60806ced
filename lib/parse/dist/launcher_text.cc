#include "parse/dist/launcher_text.h"

#include <algorithm>

#include "parse/line/scan.h"

namespace casefile::dist::launcher {

std::string_view TrimBlanks(std::string_view s) {
  size_t b = 0;
  while (b < s.size() && scan::IsBlank(s[b])) ++b;
  size_t e = s.size();
  while (e > b && (scan::IsBlank(s[e - 1]) || s[e - 1] == '\r')) --e;
  return s.substr(b, e - b);
}

size_t ReadInt(std::string_view s, size_t i, int64_t* v) {
  const bool neg = scan::At(s, i, '-');
  const size_t d = neg ? i + 1 : i;
  uint64_t u = 0;
  const size_t n = scan::ReadUint(s, d, 18, &u);
  if (n == 0 || (d + n < s.size() && scan::IsDigit(s[d + n]))) return 0;
  *v = neg ? -static_cast<int64_t>(u) : static_cast<int64_t>(u);
  return d + n - i;
}

bool IntAfter(std::string_view s, std::string_view key, int64_t* v, size_t from) {
  if (from > s.size()) return false;
  const size_t at = s.find(key, from);
  if (at == kNpos) return false;
  size_t i = at + key.size();
  while (i < s.size() && scan::IsBlank(s[i])) ++i;
  return ReadInt(s, i, v) > 0;
}

std::string_view HostAt(std::string_view s, size_t i) {
  size_t e = i;
  while (e < s.size() && e - i < kMaxHost &&
         (scan::IsAlnum(s[e]) || s[e] == '-' || s[e] == '.' || s[e] == '_')) {
    ++e;
  }
  // A sentence may end right after the name ("on node n05."): the dot is not
  // part of it.
  while (e > i && s[e - 1] == '.') --e;
  return i < s.size() ? s.substr(i, e - i) : std::string_view();
}

const char* SignalName(int64_t signo) {
  // Linux numbering (x86 and arm64 agree on all of these).
  static constexpr const char* kNames[] = {
      nullptr,     "SIGHUP",  "SIGINT",    "SIGQUIT", "SIGILL",   "SIGTRAP", "SIGABRT", "SIGBUS",
      "SIGFPE",    "SIGKILL", "SIGUSR1",   "SIGSEGV", "SIGUSR2",  "SIGPIPE", "SIGALRM", "SIGTERM",
      "SIGSTKFLT", "SIGCHLD", "SIGCONT",   "SIGSTOP", "SIGTSTP",  "SIGTTIN", "SIGTTOU", "SIGURG",
      "SIGXCPU",   "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO",   "SIGPWR",  "SIGSYS",
  };
  if (signo <= 0 || signo >= static_cast<int64_t>(sizeof(kNames) / sizeof(kNames[0]))) {
    return nullptr;
  }
  return kNames[signo];
}

int SignalFromDescription(std::string_view text) {
  // glibc's strsignal() texts for the signals a training process dies of.
  struct Entry {
    std::string_view text;
    int signo;
  };
  static constexpr Entry kTexts[] = {
      {"Hangup", 1},
      {"Interrupt", 2},
      {"Quit", 3},
      {"Illegal instruction", 4},
      {"Trace/breakpoint trap", 5},
      {"Aborted", 6},
      {"Bus error", 7},
      {"Floating point exception", 8},
      {"Killed", 9},
      {"User defined signal 1", 10},
      {"Segmentation fault", 11},
      {"User defined signal 2", 12},
      {"Broken pipe", 13},
      {"Alarm clock", 14},
      {"Terminated", 15},
      {"CPU time limit exceeded", 24},
      {"File size limit exceeded", 25},
  };
  text = TrimBlanks(text);
  if (text.size() >= 14 && text.substr(text.size() - 14) == " (core dumped)") {
    text = TrimBlanks(text.substr(0, text.size() - 14));
  }
  while (!text.empty() && text.back() == '.') text.remove_suffix(1);
  for (const Entry& e : kTexts) {
    if (text == e.text) return e.signo;
  }
  return 0;
}

std::string CodeText(std::string_view word, int64_t code) {
  std::string s(word);
  s += ' ';
  s += std::to_string(code);
  if (const char* name = SignalName(-code)) {
    s += " (";
    s += name;
    s += ')';
  } else if (code > 128 && code < 128 + 32 && SignalName(code - 128)) {
    // A shell reports a child killed by signal N as 128 + N.
    s += " (128+";
    s += SignalName(code - 128);
    s += ')';
  }
  return s;
}

void AppendCapped(std::string& out, std::string_view s, size_t cap) {
  if (out.size() >= cap) return;
  size_t n = std::min(s.size(), cap - out.size());
  if (n < s.size()) {
    // Step back over continuation bytes so a multi-byte sequence stays whole.
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  }
  out.append(s.substr(0, n));
}

void SetHost(DistEventRow& row, std::string_view host) {
  if (!host.empty()) row.host = std::string(host);
}

}  // namespace casefile::dist::launcher
