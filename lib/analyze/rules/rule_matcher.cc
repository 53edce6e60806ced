#include "analyze/rules/rule_matcher.h"

#include <algorithm>

#include "common/error.h"

namespace casefile::rules {

RuleMatcher::RuleMatcher(std::vector<std::shared_ptr<const RulePack>> packs)
    : packs_(std::move(packs)) {
  for (const auto& pack : packs_) {
    for (const Rule& rule : pack->rules) rules_.push_back(&rule);
  }
  regexes_.resize(rules_.size());
  for (size_t r = 0; r < rules_.size(); ++r) {
    const RuleMatch& m = rules_[r]->match;
    auto add = [&](const std::string& literal) {
      automaton_.Add(literal, m.ignore_case);
      pattern_rule_.push_back(static_cast<uint32_t>(r));
      pattern_size_.push_back(static_cast<uint32_t>(literal.size()));
    };
    if (m.kind == RuleMatch::Kind::kRegex) {
      regexes_[r] = std::make_unique<CompiledRegex>(m.posix, m.ignore_case);
      if (!regexes_[r]->error().empty()) {
        // Packs are validated before they get here.
        throw Error(ErrorCode::kInternal, "rule " + rules_[r]->code + ": " + regexes_[r]->error());
      }
      add(m.anchor);
    } else {
      for (const std::string& literal : m.literals) add(literal);
    }
  }
  automaton_.Build();
}

void RuleMatcher::Match(std::string_view text, const std::vector<char>& applies, Scratch& scratch,
                        std::vector<RuleHit>& hits) const {
  hits.clear();
  scratch.candidates.clear();
  if (scratch.stamp.size() != rules_.size()) scratch.stamp.assign(rules_.size(), 0);
  const uint64_t call = ++scratch.call;
  automaton_.Scan(text, [&](uint32_t pattern, size_t end) {
    const uint32_t r = pattern_rule_[pattern];
    if (!applies[r] || scratch.stamp[r] == call) return;
    scratch.stamp[r] = call;
    scratch.candidates.emplace_back(r, end - pattern_size_[pattern]);
  });
  if (scratch.candidates.empty()) return;
  std::sort(scratch.candidates.begin(), scratch.candidates.end());
  for (const auto& [r, anchor_at] : scratch.candidates) {
    const CompiledRegex* regex = regexes_[r].get();
    if (!regex) {
      hits.push_back({r, {}});
      continue;
    }
    std::string_view window = text;
    bool not_bol = false;
    bool not_eol = false;
    if (text.size() > kRegexWindowBytes) {
      // kRegexWindowBytes around the anchor, shifted to stay inside the
      // line: an anchor near either end still gets a full window.
      const size_t half = kRegexWindowBytes / 2;
      const size_t start =
          std::min(anchor_at > half ? anchor_at - half : 0, text.size() - kRegexWindowBytes);
      const size_t size = kRegexWindowBytes;
      window = text.substr(start, size);
      not_bol = start > 0;
      not_eol = start + size < text.size();
    }
    RuleHit hit;
    hit.rule = r;
    if (regex->Match(window, not_bol, not_eol, &hit.groups)) hits.push_back(std::move(hit));
  }
}

}  // namespace casefile::rules
