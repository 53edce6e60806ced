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

namespace {

bool EntryMatches(const std::vector<std::string_view>& query,
                  const std::vector<std::string>& tokens) {
  for (size_t i = 0; i < query.size(); ++i) {
    if (query[i] != tokens[i] && query[i] != "<*>" && tokens[i] != "<*>") return false;
  }
  return true;
}

std::string Joined(const std::vector<std::string_view>& tokens) {
  std::string out;
  for (std::string_view t : tokens) {
    if (!out.empty()) out += ' ';
    out += t;
  }
  return out;
}

}  // namespace

void TemplateIndex::Add(int64_t id, const std::string& level, const std::string& pattern) {
  const std::vector<std::string_view> tokens = PatternTokens(pattern);
  Entry e{id, {}};
  bool starred = false;
  for (std::string_view t : tokens) {
    e.tokens.emplace_back(t);
    starred = starred || t == "<*>";
  }
  Group& g = groups_[{level, tokens.size(), tokens.empty() ? std::string() : e.tokens[0]}];
  if (starred) {
    g.starred.push_back(std::move(e));
  } else {
    g.plain_by_text[Joined(tokens)].push_back(g.plain.size());
    g.plain.push_back(std::move(e));
  }
}

std::vector<int64_t> TemplateIndex::Matches(const std::string& level,
                                            std::string_view pattern) const {
  std::vector<int64_t> ids;
  const std::vector<std::string_view> tokens = PatternTokens(pattern);
  const bool starred = std::find(tokens.begin(), tokens.end(), "<*>") != tokens.end();
  auto search = [&](const Group& g) {
    if (starred) {
      for (const Entry& e : g.plain) {
        if (EntryMatches(tokens, e.tokens)) ids.push_back(e.id);
      }
    } else {
      auto hit = g.plain_by_text.find(Joined(tokens));
      if (hit != g.plain_by_text.end()) {
        for (size_t i : hit->second) ids.push_back(g.plain[i].id);
      }
    }
    for (const Entry& e : g.starred) {
      if (EntryMatches(tokens, e.tokens)) ids.push_back(e.id);
    }
  };
  const std::string first = tokens.empty() ? std::string() : std::string(tokens[0]);
  if (first == "<*>") {
    // Signatures whose first token is a mask merge under <*>: every first
    // token of this level and length is a candidate (rare, so a range scan).
    auto it = groups_.lower_bound(std::make_tuple(level, tokens.size(), std::string()));
    for (; it != groups_.end() && std::get<0>(it->first) == level &&
           std::get<1>(it->first) == tokens.size();
         ++it) {
      search(it->second);
    }
  } else {
    auto it = groups_.find(std::make_tuple(level, tokens.size(), first));
    if (it != groups_.end()) search(it->second);
    auto star = groups_.find(std::make_tuple(level, tokens.size(), std::string("<*>")));
    if (star != groups_.end()) search(star->second);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace casefile::diff
