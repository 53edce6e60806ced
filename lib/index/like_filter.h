// A prefilter for `lines.text LIKE pattern` and `lines.message LIKE
// pattern`: the lines virtual table is offered the constraint, keeps the
// longest run of literal bytes of the pattern, and skips the lines that do
// not contain it before SQLite sees them. SQLite still evaluates the LIKE
// on every line passed (the constraint is never marked omit), so the filter
// only has to be a superset: it compares bytes with bit 5 set (A-Z meet
// a-z, and a few punctuation pairs meet too, which costs only a recheck),
// and holds whatever LIKE's case rule (PRAGMA case_sensitive_like) is.
// Scanning every line for a substring is the most common ad-hoc query in an
// incident; without this, every line of every block became an SQLite row
// first.
#pragma once

#include <string>
#include <string_view>

namespace casefile {

class LikeFilter {
 public:
  // `pattern` as given to LIKE (two-argument form: no ESCAPE, so '%' and
  // '_' are always wildcards). A pattern of wildcards only filters nothing.
  explicit LikeFilter(std::string_view pattern);
  bool filters() const { return !needle_.empty(); }
  // False only when `text` cannot match the pattern.
  bool MayMatch(std::string_view text) const;
  const std::string& needle() const { return needle_; }  // folded (tests)

 private:
  std::string needle_;  // the longest literal run, each byte | 0x20
};

}  // namespace casefile
