// Matching template patterns across two indexes, where each side merged its
// own signatures: "<*>" in either pattern matches any one token.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
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

// Templates of one side grouped by (level, token count), for wildcard lookups.
class TemplateIndex {
 public:
  void Add(int64_t id, const std::string& level, const std::string& pattern);
  // Ids of the templates of the same level whose pattern wildcard-matches.
  std::vector<int64_t> Matches(const std::string& level, std::string_view pattern) const;

 private:
  struct Entry {
    int64_t id;
    std::vector<std::string> tokens;
  };
  std::map<std::pair<std::string, size_t>, std::vector<Entry>> groups_;
};

}  // namespace casefile::diff
