// Matching template patterns across two indexes, where each side merged its
// own signatures: "<*>" in either pattern matches any one token.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
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
// position unless every first token there was a mask (then the group is
// searched for any first token). Within a group, patterns holding no <*> are
// also kept by their text, so a query without <*> costs one hash lookup plus
// the group's <*> patterns, not a scan of every template (a word-salad log
// has tens of thousands). The index keeps views: the level and pattern
// strings given to Add must outlive it.
class TemplateIndex {
 public:
  void Add(int64_t id, std::string_view level, std::string_view pattern);
  // Ids of the templates of the same level whose pattern wildcard-matches,
  // ascending.
  std::vector<int64_t> Matches(std::string_view level, std::string_view pattern) const;

 private:
  // A pattern's tokens lie in tokens_ (one array for all, not a vector per
  // pattern: 10^5 allocations a side).
  struct Entry {
    int64_t id;
    uint32_t first;  // index of its first token in tokens_
  };
  struct Group {
    std::vector<Entry> starred;                                       // patterns holding <*>
    std::vector<Entry> plain;                                         // the others
    std::unordered_multimap<std::string_view, size_t> plain_by_text;  // pattern -> plain index
  };
  struct Key {
    std::string_view level;
    size_t count;
    std::string_view first;
    bool operator==(const Key& o) const {
      return count == o.count && level == o.level && first == o.first;
    }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      const std::hash<std::string_view> h;
      return h(k.level) * 31 + h(k.first) * 1000003 + k.count;
    }
  };
  bool EntryMatches(const std::vector<std::string_view>& query, const Entry& e) const;
  void Search(const Group& g, const std::vector<std::string_view>& tokens, std::string_view pattern,
              bool starred, std::vector<int64_t>& ids) const;
  std::vector<std::string_view> tokens_;
  std::unordered_map<Key, Group, KeyHash> groups_;
  // (level, count) -> first tokens present, for a query whose first is <*>.
  std::unordered_multimap<std::string, std::string_view> firsts_;
};

}  // namespace casefile::diff
