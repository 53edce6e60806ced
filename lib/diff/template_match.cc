#include "diff/template_match.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace casefile::diff {

namespace {

// std::isspace in the "C" locale, inline: it was a library call per byte of
// 10^5 patterns a side.
bool IsSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

}  // namespace

std::vector<std::string_view> PatternTokens(std::string_view pattern) {
  std::vector<std::string_view> tokens;
  size_t i = 0;
  while (i < pattern.size()) {
    while (i < pattern.size() && IsSpace(pattern[i])) ++i;
    size_t start = i;
    while (i < pattern.size() && !IsSpace(pattern[i])) ++i;
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

namespace {

std::string LevelCount(std::string_view level, size_t count) {
  return std::string(level) + '\x1f' + std::to_string(count);
}

}  // namespace

bool TemplateIndex::EntryMatches(const std::vector<std::string_view>& query, const Entry& e) const {
  const std::string_view* tokens = tokens_.data() + e.first;
  for (size_t i = 0; i < query.size(); ++i) {
    if (query[i] != tokens[i] && query[i] != "<*>" && tokens[i] != "<*>") return false;
  }
  return true;
}

void TemplateIndex::Add(int64_t id, std::string_view level, std::string_view pattern) {
  const std::vector<std::string_view> tokens = PatternTokens(pattern);
  const Entry e{id, static_cast<uint32_t>(tokens_.size())};
  tokens_.insert(tokens_.end(), tokens.begin(), tokens.end());
  const bool starred = std::find(tokens.begin(), tokens.end(), "<*>") != tokens.end();
  const std::string_view first = tokens.empty() ? std::string_view() : tokens[0];
  auto [it, fresh] = groups_.try_emplace(Key{level, tokens.size(), first});
  if (fresh) firsts_.emplace(LevelCount(level, tokens.size()), first);
  Group& g = it->second;
  if (starred) {
    g.starred.push_back(e);
  } else {
    g.plain_by_text.emplace(pattern, g.plain.size());
    g.plain.push_back(e);
  }
}

void TemplateIndex::Search(const Group& g, const std::vector<std::string_view>& tokens,
                           std::string_view pattern, bool starred,
                           std::vector<int64_t>& ids) const {
  if (starred) {
    for (const Entry& e : g.plain) {
      if (EntryMatches(tokens, e)) ids.push_back(e.id);
    }
  } else {
    auto [from, to] = g.plain_by_text.equal_range(pattern);
    for (auto it = from; it != to; ++it) ids.push_back(g.plain[it->second].id);
  }
  for (const Entry& e : g.starred) {
    if (EntryMatches(tokens, e)) ids.push_back(e.id);
  }
}

std::vector<int64_t> TemplateIndex::Matches(std::string_view level,
                                            std::string_view pattern) const {
  std::vector<int64_t> ids;
  const std::vector<std::string_view> tokens = PatternTokens(pattern);
  const bool starred = std::find(tokens.begin(), tokens.end(), "<*>") != tokens.end();
  const std::string_view first = tokens.empty() ? std::string_view() : tokens[0];
  if (first == "<*>") {
    // Signatures whose first token is a mask merge under <*>: every first
    // token of this level and length is a candidate (rare).
    auto [from, to] = firsts_.equal_range(LevelCount(level, tokens.size()));
    for (auto it = from; it != to; ++it) {
      auto g = groups_.find(Key{level, tokens.size(), it->second});
      if (g != groups_.end()) Search(g->second, tokens, pattern, starred, ids);
    }
  } else {
    auto g = groups_.find(Key{level, tokens.size(), first});
    if (g != groups_.end()) Search(g->second, tokens, pattern, starred, ids);
    auto star = groups_.find(Key{level, tokens.size(), "<*>"});
    if (star != groups_.end()) Search(star->second, tokens, pattern, starred, ids);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace casefile::diff
