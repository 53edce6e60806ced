// Log templates of the two sides (docs/DIFF.md, section templates). A bad
// template is matched to good when one of its signatures has a twin in good
// (signature patterns are a pure function of the line, so they are the same
// in every bundle), or when its merged pattern matches a good template with
// <*> as a wildcard (the two sides may have merged different signatures).
// Unmatched bad templates are new, unmatched good ones vanished; matched ones
// whose rate (lines per line of all logs) moved by kFrequencyFactor or more
// changed.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <future>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "diff/sections.h"
#include "diff/template_match.h"

namespace casefile::diff {
namespace {

// A template's rate must move by this factor (either way) to be "changed".
constexpr double kFrequencyFactor = 4.0;
// ...and the side where it is frequent must hold at least this many lines of
// it: a template seen twice in one run and once in the other is noise.
constexpr int64_t kFrequencyMinCount = 20;

struct SideTemplates {
  std::vector<TemplateRow> templates;  // ordered by id
  std::vector<TemplateSignatureRow> signatures;
  // template id -> indices into signatures (ids are 1, 2, 3...)
  std::vector<std::vector<uint32_t>> members;
  // hash of (level, signature pattern) -> indices into signatures; a hit is
  // checked against the text, so a collision costs a comparison, not a match
  std::unordered_multimap<uint64_t, uint32_t> by_signature;
  std::vector<uint64_t> signature_hash;  // LevelPatternHash of each signature
  TemplateIndex by_pattern;              // views into `templates`, which no longer moves
};

uint64_t LevelPatternHash(std::string_view level, std::string_view pattern) {
  const std::hash<std::string_view> h;
  return h(level) * 0x9E3779B97F4A7C15ull ^ h(pattern);
}

// SideTemplates holds views into itself: built in place, never moved.
void Load(const DiffSide& side, SideTemplates& t) {
  t.templates = side.index->Templates();
  t.signatures = side.index->TemplateSignatures();
  const int64_t max_id = t.templates.empty() ? 0 : t.templates.back().id;
  t.members.resize(static_cast<size_t>(max_id) + 1);
  t.by_signature.reserve(t.signatures.size());
  t.signature_hash.resize(t.signatures.size());
  for (size_t i = 0; i < t.signatures.size(); ++i) {
    const TemplateSignatureRow& s = t.signatures[i];
    if (s.template_id >= 0 && s.template_id <= max_id) {
      t.members[static_cast<size_t>(s.template_id)].push_back(static_cast<uint32_t>(i));
    }
    t.signature_hash[i] = LevelPatternHash(s.level, s.pattern);
    t.by_signature.emplace(t.signature_hash[i], static_cast<uint32_t>(i));
  }
  for (const TemplateRow& row : t.templates) t.by_pattern.Add(row.id, row.level, row.pattern);
}

// The templates of `other` that `row` (a template of `self`) matches,
// ascending.
std::vector<int64_t> Twins(const SideTemplates& self, const TemplateRow& row,
                           const SideTemplates& other) {
  std::vector<int64_t> twins;
  if (row.id >= 0 && static_cast<size_t>(row.id) < self.members.size()) {
    for (uint32_t i : self.members[static_cast<size_t>(row.id)]) {
      const TemplateSignatureRow& s = self.signatures[i];
      auto [from, to] = other.by_signature.equal_range(self.signature_hash[i]);
      for (auto it = from; it != to; ++it) {
        const TemplateSignatureRow& o = other.signatures[it->second];
        if (o.level == s.level && o.pattern == s.pattern) twins.push_back(o.template_id);
      }
    }
  }
  if (twins.empty()) return other.by_pattern.Matches(row.level, row.pattern);
  std::sort(twins.begin(), twins.end());
  twins.erase(std::unique(twins.begin(), twins.end()), twins.end());
  return twins;
}

bool IsErrorLevel(const std::string& level) { return level == "error" || level == "fatal"; }
bool IsWarningLevel(const std::string& level) { return level == "warning"; }

double NewScore(const TemplateRow& row) {
  if (IsErrorLevel(row.level)) return 85;
  if (IsWarningLevel(row.level)) return 65;
  // A line with no level that reads like a failure is worth more than an
  // ordinary new info line, but not the headline on its own.
  if (row.level.empty() && LooksLikeFailure(row.pattern)) return 45;
  return 25;
}

double VanishedScore(const TemplateRow& row) {
  if (IsErrorLevel(row.level)) return 40;
  if (IsWarningLevel(row.level)) return 30;
  return 10;
}

double ChangedScore(const TemplateRow& row, bool rising) {
  const bool loud = IsErrorLevel(row.level) || IsWarningLevel(row.level) ||
                    (row.level.empty() && LooksLikeFailure(row.pattern));
  if (rising) return loud ? 55 : 15;
  return loud ? 25 : 10;
}

std::string CountText(int64_t n) { return std::to_string(n) + (n == 1 ? " line" : " lines"); }

const TemplateRow* Find(const SideTemplates& t, int64_t id) {
  auto it = std::lower_bound(t.templates.begin(), t.templates.end(), id,
                             [](const TemplateRow& r, int64_t v) { return r.id < v; });
  return it != t.templates.end() && it->id == id ? &*it : nullptr;
}

void Describe(DiffItem& item, const TemplateRow& row) {
  item.key = row.pattern;
  if (!row.level.empty()) item.fields.push_back({"level", row.level});
  item.fields.push_back({"signatures", row.signatures});
}

// A template only one side has: "new" (in bad) or "vanished" (in good), its
// count on that side and its first line there.
DiffItem OneSideItem(const TemplateRow& row, double score, bool bad) {
  DiffItem item;
  item.section = "templates";
  item.kind = bad ? "new" : "vanished";
  Describe(item, row);
  (bad ? item.bad : item.good) = std::to_string(row.count);
  item.score = score;
  item.fields.push_back({"count", row.count});
  item.summary = std::string(bad ? "New in bad" : "Only in good") +
                 (row.level.empty() ? "" : " (" + row.level + ")") + ", " + CountText(row.count) +
                 ": " + row.example;
  (bad ? item.bad_lines : item.good_lines).emplace_back(row.first_file_id, row.first_line_no);
  return item;
}

}  // namespace

std::vector<DiffItem> DiffTemplates(const DiffSide& good, const DiffSide& bad, size_t keep,
                                    TemplateOmitted* omitted) {
  // Each side is read through its own index reader, and matching only reads
  // both sides' tables: good is loaded, then matched against bad, on a
  // second thread (word-salad logs have 10^5 templates a side).
  SideTemplates g, b;
  {
    auto good_loaded = std::async(std::launch::async, [&] { Load(good, g); });
    Load(bad, b);
    good_loaded.get();
  }
  const double good_lines = std::max<int64_t>(good.total_lines, 1);
  const double bad_lines = std::max<int64_t>(bad.total_lines, 1);

  // First what differs and its score, cheaply; items (strings, fields) are
  // built only for the `keep` best of each kind: a log of ever-new shapes
  // has 10^5 templates, and the report shows 100.
  struct Candidate {
    double score;
    const TemplateRow* row;
    int64_t good_count = 0;
    const TemplateRow* first_good = nullptr;
    double factor = 0;
    bool rising = false;
  };
  std::vector<Candidate> fresh, changed, vanished;
  auto vanished_found = std::async(std::launch::async, [&] {
    for (const TemplateRow& row : g.templates) {
      if (Twins(g, row, b).empty()) vanished.push_back({VanishedScore(row), &row});
    }
  });
  for (const TemplateRow& row : b.templates) {
    const std::vector<int64_t> twins = Twins(b, row, g);
    if (twins.empty()) {
      fresh.push_back({NewScore(row), &row});
      continue;
    }
    // Rates compared over all the good templates it matches.
    Candidate c{0, &row};
    for (int64_t id : twins) {
      if (const TemplateRow* t = Find(g, id)) {
        c.good_count += t->count;
        if (c.first_good == nullptr) c.first_good = t;
      }
    }
    const double rate_good = c.good_count / good_lines;
    const double rate_bad = row.count / bad_lines;
    if (rate_good <= 0 || rate_bad <= 0) continue;
    c.factor = rate_bad / rate_good;
    // A falling rate must come with a falling count: a flood of new lines in
    // bad lowers every other template's rate, and "7.7x less frequent (32
    // -> 32 lines)" is no change of that template. (A rising rate needs no
    // rising count: a bad run that died early has fewer lines of all kinds.)
    c.rising = c.factor >= kFrequencyFactor && row.count >= kFrequencyMinCount;
    const bool falling = c.factor <= 1 / kFrequencyFactor && c.good_count >= kFrequencyMinCount &&
                         row.count < c.good_count;
    if (!c.rising && !falling) continue;
    c.score = ChangedScore(row, c.rising);
    changed.push_back(c);
  }
  vanished_found.get();
  // The order RankItems gives items of one kind: score, then key (pattern).
  auto best = [keep](std::vector<Candidate>& list, int64_t* cut) {
    auto order = [](const Candidate& x, const Candidate& y) {
      if (x.score != y.score) return x.score > y.score;
      return x.row->pattern < y.row->pattern;
    };
    if (list.size() > keep) {
      std::partial_sort(list.begin(), list.begin() + static_cast<ptrdiff_t>(keep), list.end(),
                        order);
      if (cut != nullptr) *cut = static_cast<int64_t>(list.size() - keep);
      list.resize(keep);
    }
  };
  best(fresh, omitted ? &omitted->fresh : nullptr);
  best(changed, omitted ? &omitted->changed : nullptr);
  best(vanished, omitted ? &omitted->vanished : nullptr);

  std::vector<DiffItem> items;
  items.reserve(fresh.size() + changed.size() + vanished.size());
  for (const Candidate& c : fresh) items.push_back(OneSideItem(*c.row, c.score, /*bad=*/true));
  for (const Candidate& c : changed) {
    const TemplateRow& row = *c.row;
    DiffItem item;
    item.section = "templates";
    item.kind = "changed";
    Describe(item, row);
    item.good = std::to_string(c.good_count);
    item.bad = std::to_string(row.count);
    item.score = c.score;
    item.fields.push_back({"good_count", c.good_count});
    item.fields.push_back({"bad_count", row.count});
    item.fields.push_back({"rate_factor", std::round(c.factor * 100) / 100});
    char factor_text[32];
    std::snprintf(factor_text, sizeof factor_text, "%.1f", c.rising ? c.factor : 1 / c.factor);
    item.summary = std::string(factor_text) + (c.rising ? "x more frequent" : "x less frequent") +
                   " in bad (" + std::to_string(c.good_count) + " -> " + std::to_string(row.count) +
                   " lines): " + row.example;
    if (c.first_good != nullptr) {
      item.good_lines.emplace_back(c.first_good->first_file_id, c.first_good->first_line_no);
    }
    item.bad_lines.emplace_back(row.first_file_id, row.first_line_no);
    items.push_back(std::move(item));
  }
  for (const Candidate& c : vanished) {
    items.push_back(OneSideItem(*c.row, c.score, /*bad=*/false));
  }
  RankItems(items);
  return items;
}

}  // namespace casefile::diff
