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
  if (!DigitsEndAt(s, end, ':')) {
    // "cc1plus: fatal error:" and "ld: ..." name a program, not a location.
    return s.substr(0, end).ends_with("cc1plus") || s.substr(0, end).ends_with("cc1");
  }
  // ":L:C" or ":L".
  size_t i = end;
  while (i > 0 && IsDigit(s[i - 1])) --i;
  return i > 1;
}

}  // namespace

bool IsCompilerErrorLine(std::string_view m) {
  while (!m.empty() && (m.front() == ' ' || m.front() == '\t')) m.remove_prefix(1);
  if (m.starts_with("nvcc fatal") || m.starts_with("ptxas fatal") || m.starts_with("ptxas error"))
    return true;
  for (size_t at = m.find("error"); at != kNpos; at = m.find("error", at + 1)) {
    // "error:" / "error #20014-D:" / "fatal error:".
    const size_t after = at + 5;
    if (after >= m.size() || (m[after] != ':' && m[after] != ' ')) continue;
    if (m[after] == ' ' && !(after + 1 < m.size() && m[after + 1] == '#')) continue;
    size_t head = at;
    if (head >= 6 && m.substr(head - 6, 6) == "fatal ") head -= 6;
    if (LocationBefore(m, head)) return true;
  }
  if (m.find("undefined reference to") != kNpos) return true;
  const size_t ld = m.find("ld: cannot find");
  if (ld != kNpos && (ld == 0 || m[ld - 1] == '/')) return true;
  return false;
}

}  // namespace casefile::build
