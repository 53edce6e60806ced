// The regexes of rules: POSIX extended regular expressions (<regex.h>), not
// std::regex, whose matcher recurses per character and overflows the stack
// on long lines. On top of POSIX, a group may be named, (?<name>...): the
// name is stripped before regcomp and remembered with the group's number.
// A regex runs only on lines where the automaton found its required
// literal (RequiredLiteral), so most lines never reach regexec.
#pragma once

#include <regex.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace casefile::rules {

// A regex is at most this many bytes (a pattern is one line's fragment).
inline constexpr size_t kMaxRegexBytes = 1024;
// A regex may hold at most this many positions once its repetition counts
// are copied out (ExpandedAtoms): regcomp's memory grows with it.
inline constexpr uint64_t kMaxExpandedAtoms = 1000;

// The positions glibc's regcomp builds for the ERE `posix`: each atom 1,
// a group the sum of its branches, an interval {m,n} copies its atom
// max(m, n) times ({m,} m + 1), '+' twice. Saturates above
// 16 * kMaxExpandedAtoms.
uint64_t ExpandedAtoms(std::string_view posix);

// A rule's pattern after the named groups are taken out.
struct PreparedRegex {
  std::string posix;                     // what regcomp gets
  std::vector<std::string> group_names;  // [n] = name of group n ("" unnamed); [0] unused
  std::string error;    // non-empty: refused (Perl syntax, back-references, too large, ...)
  size_t error_at = 0;  // byte offset of the problem in the pattern
};
PreparedRegex PrepareRegex(std::string_view pattern);

// The longest run of bytes that every match of the ERE `posix` contains
// ("" when there is none: a top-level alternation, or only classes). Bytes
// followed by ?, * or {m,n} are optional and end the run; groups, bracket
// expressions, '.', anchors and backslash classes end it too.
std::string RequiredLiteral(std::string_view posix);

// A compiled regex. Thread-safe for matching (regexec on a shared regex_t).
// Compiles and matches under the C locale whatever the process's locale:
// byte-wise, so '.' matches any byte and a quantifier after a non-ASCII
// character applies to its last byte.
class CompiledRegex {
 public:
  // Throws nothing: check error() after construction.
  CompiledRegex(const std::string& posix, bool ignore_case);
  ~CompiledRegex();
  CompiledRegex(const CompiledRegex&) = delete;
  CompiledRegex& operator=(const CompiledRegex&) = delete;

  const std::string& error() const { return error_; }  // regerror's text, "" when compiled
  size_t group_count() const { return ok_ ? regex_.re_nsub : 0; }
  // Matches `text` (NUL-terminated copy inside); not_bol / not_eol say that
  // the text is a window cut from a longer line, so ^ and $ do not match at
  // its edges. On a match fills groups[0..group_count()] with the captured
  // text (nullopt for a group that took no part).
  bool Match(std::string_view text, bool not_bol, bool not_eol,
             std::vector<std::optional<std::string>>* groups) const;

 private:
  regex_t regex_{};
  bool ok_ = false;
  std::string error_;
};

}  // namespace casefile::rules
