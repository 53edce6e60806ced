#include "parse/template/template_miner.h"

#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

#include "parse/template/template_mask.h"

namespace casefile::templates {
namespace {

// Token ids: 0 is <*>, 1-4 the whole-token masks, then the other tokens in
// order of first sight. Comparing ids instead of strings keeps the merge of
// 65,536 signatures well under a second.
constexpr uint32_t kWildcardId = 0;
constexpr uint32_t kLastMaskId = 4;

class TokenIds {
 public:
  TokenIds() {
    for (std::string_view t : {kWildcard, kMaskNum, kMaskHex, kMaskIp, kMaskPath}) Id(t);
  }
  // Looked up by view (no allocation for a known token); the map's keys
  // view the strings of names_, whose addresses a deque keeps stable.
  uint32_t Id(std::string_view token) {
    auto it = ids_.find(token);
    if (it != ids_.end()) return it->second;
    const uint32_t id = static_cast<uint32_t>(names_.size());
    ids_.emplace(names_.emplace_back(token), id);
    return id;
  }
  const std::string& Name(uint32_t id) const { return names_[id]; }

 private:
  std::unordered_map<std::string_view, uint32_t> ids_;
  std::deque<std::string> names_;
};

bool IsWholeMask(uint32_t id) { return id != kWildcardId && id <= kLastMaskId; }

bool HoldsMask(std::string_view tok) {
  for (std::string_view m : {kMaskNum, kMaskHex, kMaskIp, kMaskPath}) {
    if (tok.find(m) != std::string_view::npos) return true;
  }
  return false;
}

struct Building {
  TemplateRow row;
  std::vector<uint32_t> tokens;
  std::string first_pattern;  // the pattern of its first signature
};

// The share of equal positions (a <*> is never equal) and whether two
// whole-token masks of different types meet. With `need` > 0 it stops as
// soon as fewer than `need` equal positions remain possible (the share is
// then a lower bound that is below the threshold anyway): most comparisons
// of a large group end after a few tokens.
Similarity CompareIds(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b,
                      size_t need = 0) {
  Similarity s;
  if (a.size() != b.size() || a.empty()) {
    s.compatible = a.size() == b.size();
    return s;
  }
  const size_t n = a.size();
  size_t equal = 0;
  for (size_t k = 0; k < n; ++k) {
    if (a[k] == b[k] && a[k] != kWildcardId) {
      ++equal;
    } else {
      if (IsWholeMask(a[k]) && IsWholeMask(b[k]) && a[k] != b[k]) {
        s.compatible = false;  // <NUM> against <PATH>: different things
        if (need > 0) break;
      }
      if (need > 0 && equal + (n - k - 1) < need) break;
    }
  }
  s.share = static_cast<double>(equal) / static_cast<double>(n);
  return s;
}

}  // namespace

std::vector<std::string> SplitTokens(std::string_view pattern) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < pattern.size()) {
    size_t sp = pattern.find(' ', i);
    if (sp == std::string_view::npos) sp = pattern.size();
    out.emplace_back(pattern.substr(i, sp - i));
    i = sp + 1;
  }
  return out;
}

Similarity CompareTokens(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  TokenIds ids;
  std::vector<uint32_t> ia, ib;
  for (const std::string& t : a) ia.push_back(ids.Id(t));
  for (const std::string& t : b) ib.push_back(ids.Id(t));
  return CompareIds(ia, ib);
}

MinedTemplates MineTemplates(const std::vector<Signature>& signatures,
                             const MergeOptions& options) {
  MinedTemplates out;
  TokenIds ids;
  std::vector<Building> templates;
  std::unordered_map<std::string, std::vector<size_t>> groups;  // key -> templates, oldest first
  out.signatures.reserve(signatures.size());
  for (size_t i = 0; i < signatures.size(); ++i) {
    const Signature& sig = signatures[i];
    std::vector<uint32_t> tokens;
    std::string_view first;
    for (size_t at = 0; at < sig.pattern.size();) {
      size_t sp = sig.pattern.find(' ', at);
      if (sp == std::string::npos) sp = sig.pattern.size();
      std::string_view word(sig.pattern.data() + at, sp - at);
      if (tokens.empty()) first = word;
      tokens.push_back(ids.Id(word));
      at = sp + 1;
    }
    size_t chosen = templates.size();  // a new one, unless one matches
    std::string key;
    const bool mergeable = !sig.overflow && !tokens.empty();
    if (mergeable) {
      key = std::string(LevelName(sig.level)) + '\x1f' + std::to_string(tokens.size()) + '\x1f';
      key.append(HoldsMask(first) ? kWildcard : first);
      auto it = groups.find(key);
      if (it != groups.end()) {
        // The fewest equal positions that reach the threshold.
        size_t need = static_cast<size_t>(options.threshold * static_cast<double>(tokens.size()));
        while (static_cast<double>(need) < options.threshold * static_cast<double>(tokens.size())) {
          ++need;
        }
        if (need == 0) need = 1;
        size_t compared = 0;
        for (size_t t : it->second) {
          if (compared++ >= options.max_compared) break;
          Similarity s = CompareIds(templates[t].tokens, tokens, need);
          if (s.compatible && s.share >= options.threshold) {
            chosen = t;
            break;
          }
        }
      }
    }
    if (chosen == templates.size()) {
      Building& b = templates.emplace_back();
      b.row.id = static_cast<int64_t>(templates.size());
      b.row.level = LevelName(sig.level);
      b.row.first_file_id = sig.first_file_id;
      b.row.first_line_no = sig.first_line_no;
      b.row.example = sig.example;
      b.first_pattern = sig.pattern;
      b.tokens = std::move(tokens);
      if (mergeable) groups[key].push_back(chosen);
    } else {
      Building& b = templates[chosen];
      for (size_t k = 0; k < b.tokens.size(); ++k) {
        if (b.tokens[k] != tokens[k]) b.tokens[k] = kWildcardId;
      }
    }
    Building& b = templates[chosen];
    b.row.count += sig.count;
    ++b.row.signatures;
    TemplateSignatureRow& row = out.signatures.emplace_back();
    row.id = static_cast<int64_t>(i + 1);
    row.template_id = b.row.id;
    row.level = LevelName(sig.level);
    row.pattern = sig.pattern;
    row.count = sig.count;
    row.first_file_id = sig.first_file_id;
    row.first_line_no = sig.first_line_no;
  }
  out.templates.reserve(templates.size());
  for (Building& b : templates) {
    if (b.row.signatures == 1) {
      // Exactly its signature's pattern (an empty message, "<overflow>", a
      // pattern cut in the middle of a token).
      b.row.pattern = std::move(b.first_pattern);
    } else {
      for (size_t k = 0; k < b.tokens.size(); ++k) {
        if (k > 0) b.row.pattern.push_back(' ');
        b.row.pattern += ids.Name(b.tokens[k]);
      }
      if (b.row.pattern.size() > kTemplatePatternBytes) b.row.pattern.resize(kTemplatePatternBytes);
    }
    out.templates.push_back(std::move(b.row));
  }
  return out;
}

}  // namespace casefile::templates
