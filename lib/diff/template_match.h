// Matching template patterns across two indexes, where each side merged its
// own signatures: "<*>" in either pattern matches any one token.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace casefile::diff {

// The whitespace-separated tokens of a pattern (views into it).
std::vector<std::string_view> PatternTokens(std::string_view pattern);

// True when the two token lists have the same length and every position is
// equal or "<*>" on either side.
bool WildcardEqual(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b);

// True when a pattern names a failure in words (error, failed, exception,
// timeout, nan...): for lines that carry no level of their own.
bool LooksLikeFailure(std::string_view pattern);

// Templates of one side, for wildcard lookups. Grouped by (level, token
// count, first token): the template merge never puts <*> in the first
// position (it groups by the first token), so candidates share it. Within a
// group, patterns holding no <*> are also kept by their text, so a query
// without <*> costs one hash lookup plus the group's <*> patterns, not a scan
// of every template (a word-salad log has tens of thousands).
class TemplateIndex {
 public:
  void Add(int64_t id, const std::string& level, const std::string& pattern);
  // Ids of the templates of the same level whose pattern wildcard-matches,
  // in the order they were added.
  std::vector<int64_t> Matches(const std::string& level, std::string_view pattern) const;

 private:
  struct Entry {
    int64_t id;
    std::vector<std::string> tokens;
  };
  struct Group {
    std::vector<Entry> starred;                                             // patterns holding <*>
    std::vector<Entry> plain;                                               // the others
    std::map<std::string, std::vector<size_t>, std::less<>> plain_by_text;  // -> plain indices
  };
  std::map<std::tuple<std::string, size_t, std::string>, Group, std::less<>> groups_;
};

}  // namespace casefile::diff
