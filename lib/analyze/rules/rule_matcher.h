// The rules of every pack in use compiled for one pass over the lines: one
// automaton holds every literal and every regex's anchor; a line that hits
// no pattern costs one table lookup per byte and nothing else. Immutable
// once built, so analyses on several threads share it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/rules/literal_automaton.h"
#include "analyze/rules/regex_pattern.h"
#include "analyze/rules/rule_pack.h"

namespace casefile::rules {

// Bytes of a long line a regex is given: this many around the first
// occurrence of its anchor (docs/RULES.md says so). Keeps regexec's cost per
// line bounded whatever the line's length.
inline constexpr size_t kRegexWindowBytes = 4096;

struct RuleHit {
  size_t rule = 0;                                 // index into rules()
  std::vector<std::optional<std::string>> groups;  // regex captures ([0] = whole match)
};

class RuleMatcher {
 public:
  // `rules` in pack order; the matcher keeps pointers into `packs`.
  explicit RuleMatcher(std::vector<std::shared_ptr<const RulePack>> packs);

  const std::vector<const Rule*>& rules() const { return rules_; }
  const std::vector<std::shared_ptr<const RulePack>>& packs() const { return packs_; }
  const LiteralAutomaton& automaton() const { return automaton_; }

  // The rules that match `text`, each once, in rule order. `applies[r]` false
  // skips rule r (it does not read this file's kind). `scratch` is reused
  // between calls to avoid allocations.
  struct Scratch {
    std::vector<uint64_t> stamp;                        // per rule: the call that last saw it
    std::vector<std::pair<size_t, size_t>> candidates;  // (rule, anchor end)
    uint64_t call = 0;
  };
  void Match(std::string_view text, const std::vector<char>& applies, Scratch& scratch,
             std::vector<RuleHit>& hits) const;

 private:
  std::vector<std::shared_ptr<const RulePack>> packs_;
  std::vector<const Rule*> rules_;
  std::vector<std::unique_ptr<CompiledRegex>> regexes_;  // per rule; null for literal rules
  std::vector<uint32_t> pattern_rule_;                   // automaton pattern -> rule
  std::vector<uint32_t> pattern_size_;
  LiteralAutomaton automaton_;
};

}  // namespace casefile::rules
