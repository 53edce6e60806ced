#include "diff/template_match.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace casefile::diff {

std::vector<std::string_view> PatternTokens(std::string_view pattern) {
  std::vector<std::string_view> tokens;
  size_t i = 0;
  while (i < pattern.size()) {
    while (i < pattern.size() && std::isspace(static_cast<unsigned char>(pattern[i]))) ++i;
    size_t start = i;
    while (i < pattern.size() && !std::isspace(static_cast<unsigned char>(pattern[i]))) ++i;
    if (i > start) tokens.push_back(pattern.substr(start, i - start));
  }
  return tokens;
}

bool WildcardEqual(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i] && a[i] != "<*>" && b[i] != "<*>") return false;
  }
  return true;
}

bool LooksLikeFailure(std::string_view pattern) {
  static constexpr std::array<std::string_view, 14> kWords = {
      "error",   "fail",   "exception", "fatal", "abort",   "timeout",     "timed out",
      "refused", "killed", "traceback", "nan",   "corrupt", "unreachable", "segmentation"};
  std::string lower(pattern);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (std::string_view w : kWords) {
    size_t at = lower.find(w);
    while (at != std::string::npos) {
      // "nan" must be a word of its own ("finance", "nanoseconds" are not).
      const bool word_start = at == 0 || !std::isalpha(static_cast<unsigned char>(lower[at - 1]));
      const size_t end = at + w.size();
      const bool word_end = w != "nan" || end == lower.size() ||
                            !std::isalpha(static_cast<unsigned char>(lower[end]));
      if (word_start && word_end) return true;
      at = lower.find(w, at + 1);
    }
  }
  return false;
}

void TemplateIndex::Add(int64_t id, const std::string& level, const std::string& pattern) {
  Entry e{id, {}};
  for (std::string_view t : PatternTokens(pattern)) e.tokens.emplace_back(t);
  groups_[{level, e.tokens.size()}].push_back(std::move(e));
}

std::vector<int64_t> TemplateIndex::Matches(const std::string& level,
                                            std::string_view pattern) const {
  std::vector<int64_t> ids;
  const std::vector<std::string_view> tokens = PatternTokens(pattern);
  auto it = groups_.find({level, tokens.size()});
  if (it == groups_.end()) return ids;
  for (const Entry& e : it->second) {
    bool equal = true;
    for (size_t i = 0; i < tokens.size() && equal; ++i) {
      equal = tokens[i] == e.tokens[i] || tokens[i] == "<*>" || e.tokens[i] == "<*>";
    }
    if (equal) ids.push_back(e.id);
  }
  return ids;
}

}  // namespace casefile::diff
