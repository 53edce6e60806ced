#include "analyze/analyzers/build/compiler_errors.h"

namespace casefile::build {
namespace {

constexpr size_t kNpos = std::string_view::npos;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// s[i] is just past digits that end at i and start after `open`.
bool DigitsEndAt(std::string_view s, size_t end, char open) {
  size_t i = end;
  while (i > 0 && IsDigit(s[i - 1])) --i;
  return i < end && i > 0 && s[i - 1] == open;
}

// "path:L:C: error:" / "path:L: error:" / "path(L): error": the text before
// `at` (the position of "error" or "fatal error") ends in a location.
bool LocationBefore(std::string_view s, size_t at) {
  if (at < 3 || s[at - 1] != ' ' || s[at - 2] != ':') return false;
  const size_t end = at - 2;  // the ':' before the blank
  if (end > 0 && s[end - 1] == ')') return DigitsEndAt(s, end - 1, '(');  // nvcc "(45):"
  if (!DigitsEndAt(s, end, ':')) return false;
  // ":L:C" or ":L".
  size_t i = end;
  while (i > 0 && IsDigit(s[i - 1])) --i;
  return i > 1;
}

// The compiler drivers, their passes and the linkers, whose own diagnostics
// start with their name: "g++: fatal error: Killed signal terminated
// program cc1plus", "x86_64-linux-gnu-gcc: error: unrecognized
// command-line option", "clang++: error: no such file or directory",
// "ld.lld: error: undefined symbol: cublasCreate_v2". A target prefix
// ("x86_64-conda-linux-gnu-") and a version suffix ("-12") are allowed.
bool IsToolName(std::string_view p) {
  const size_t slash = p.rfind('/');
  if (slash != kNpos) p.remove_prefix(slash + 1);
  if (p.empty() || p.find(' ') != kNpos) return false;
  // A version suffix: "gcc-12", "clang++-17".
  const size_t dash = p.rfind('-');
  if (dash != kNpos && dash + 1 < p.size()) {
    bool digits = true;
    for (char c : p.substr(dash + 1)) digits = digits && (IsDigit(c) || c == '.');
    if (digits) p = p.substr(0, dash);
  }
  for (std::string_view tool : {"gcc", "g++", "cc", "c++", "cc1", "cc1plus", "clang", "clang++",
                                "ld", "ld.lld", "ld.gold", "ld.bfd", "lld", "mold", "nvcc"}) {
    if (p == tool) return true;
    // A target triple before it: "x86_64-linux-gnu-gcc".
    if (p.size() > tool.size() + 1 && p.ends_with(tool) && p[p.size() - tool.size() - 1] == '-')
      return true;
  }
  return false;
}

// "<tool>: error:" / "<tool>: fatal error:" at the start of the message.
bool ToolBefore(std::string_view s, size_t at) {
  if (at < 3 || s[at - 1] != ' ' || s[at - 2] != ':') return false;
  return IsToolName(s.substr(0, at - 2));
}

// Messages that report a consequence of an error printed before them.
bool IsConsequence(std::string_view m) {
  return m.find("ld returned") != kNpos || m.find("linker command failed") != kNpos;
}

}  // namespace

bool IsCompilerErrorLine(std::string_view m) {
  while (!m.empty() && (m.front() == ' ' || m.front() == '\t')) m.remove_prefix(1);
  // nvcc's own: "nvcc fatal   : ...", "nvcc error   : 'cicc' died due to
  // signal 9 (Kill signal)" (the compiler killed for memory).
  if (m.starts_with("nvcc fatal") || m.starts_with("nvcc error") || m.starts_with("ptxas fatal") ||
      m.starts_with("ptxas error"))
    return true;
  if (IsConsequence(m)) return false;
  for (size_t at = m.find("error"); at != kNpos; at = m.find("error", at + 1)) {
    // "error:" / "error #20014-D:" / "fatal error:" / "catastrophic error:"
    // (nvcc's front end: "x.cu(3): catastrophic error: cannot open source
    // file") / "internal error:"; gcc's driver also says "error trying to
    // exec 'cc1plus'".
    const size_t after = at + 5;
    if (after >= m.size() || (m[after] != ':' && m[after] != ' ')) continue;
    size_t head = at;
    for (std::string_view grade : {"fatal ", "catastrophic ", "internal "}) {
      if (head >= grade.size() && m.substr(head - grade.size(), grade.size()) == grade) {
        head -= grade.size();
        break;
      }
    }
    if (ToolBefore(m, head) && (m[after] == ':' || m.substr(after).starts_with(" trying to exec")))
      return true;
    if (m[after] == ' ' && !(after + 1 < m.size() && m[after + 1] == '#')) continue;
    if (LocationBefore(m, head)) return true;
  }
  if (m.find("undefined reference to") != kNpos) return true;
  const size_t ld = m.find("ld: cannot find");
  if (ld != kNpos && (ld == 0 || m[ld - 1] == '/')) return true;
  return false;
}

}  // namespace casefile::build
