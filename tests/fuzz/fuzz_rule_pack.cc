// Fuzz target: a rule pack read, validated, compiled and run. The input is
// the pack's JSON text, a NUL byte, then lines to match. ParseRulePack runs
// with a context that owns some codes and knows others (so those checks are
// reached); a valid pack is compiled into a RuleMatcher (its regexes, its
// literal automaton) as the rules analyzer does, every line is matched with
// every rule applying, and each hit's summary is expanded. A hit must hold
// what the rule asked for: a literal rule one of its literals, a regex
// rule's whole match its derived anchor. The first line is also taken as a
// pattern through PrepareRegex / regcomp on its own, the steps a pack's
// regex goes through, and matched against the other lines. A regex that
// makes regexec slow shows up as a timeout.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/rules/regex_pattern.h"
#include "analyze/rules/rule_matcher.h"
#include "analyze/rules/rule_pack.h"
#include "analyze/rules/rule_template.h"
#include "common/error.h"

namespace {

using casefile::rules::Rule;
using casefile::rules::RuleMatch;

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool Holds(std::string_view text, std::string_view part, bool ignore_case) {
  if (ignore_case) return Lower(text).find(Lower(part)) != std::string::npos;
  return text.find(part) != std::string_view::npos;
}

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    lines.push_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

void CheckHit(const Rule& rule, std::string_view line,
              const std::vector<std::optional<std::string>>& groups) {
  const RuleMatch& m = rule.match;
  if (m.kind != RuleMatch::Kind::kRegex) {
    const bool any = std::any_of(m.literals.begin(), m.literals.end(), [&](const std::string& l) {
      return Holds(line, l, m.ignore_case);
    });
    if (!any || !groups.empty()) std::abort();
    return;
  }
  if (groups.empty() || !groups[0]) std::abort();
  if (line.find(*groups[0]) == std::string_view::npos) std::abort();
  // A derived anchor is a literal every match contains.
  if (!m.anchor_given && !Holds(*groups[0], m.anchor, m.ignore_case)) std::abort();
}

void RunPack(const casefile::rules::RulePack& parsed, const std::vector<std::string_view>& lines) {
  auto pack = std::make_shared<const casefile::rules::RulePack>(parsed);
  std::unique_ptr<casefile::rules::RuleMatcher> matcher;
  try {
    matcher = std::make_unique<casefile::rules::RuleMatcher>(
        std::vector<std::shared_ptr<const casefile::rules::RulePack>>{pack});
  } catch (const casefile::Error& e) {
    // Only the automaton's size limit may refuse a validated pack.
    if (e.code() != casefile::ErrorCode::kLimit) std::abort();
    return;
  }
  const std::vector<char> applies(matcher->rules().size(), 1);
  casefile::rules::RuleMatcher::Scratch scratch;
  std::vector<casefile::rules::RuleHit> hits;
  for (std::string_view line : lines) {
    matcher->Match(line, applies, scratch, hits);
    size_t last = 0;
    for (size_t h = 0; h < hits.size(); ++h) {
      const auto& hit = hits[h];
      if (hit.rule >= matcher->rules().size() || (h > 0 && hit.rule <= last)) std::abort();
      last = hit.rule;
      const Rule& rule = *matcher->rules()[hit.rule];
      CheckHit(rule, line, hit.groups);
      casefile::rules::TemplateValues values;
      values.host = "node03";
      values.count = "2";
      values.first = "logs/a.log:7";
      values.groups = hit.groups;
      values.group_names = &rule.match.group_names;
      (void)casefile::rules::ExpandTemplate(rule.summary, values);
    }
  }
}

void RunPattern(std::string_view pattern, const std::vector<std::string_view>& lines) {
  const casefile::rules::PreparedRegex prepared = casefile::rules::PrepareRegex(pattern);
  if (!prepared.error.empty()) {
    if (prepared.error_at > pattern.size()) std::abort();
    return;
  }
  (void)casefile::rules::RequiredLiteral(prepared.posix);
  const casefile::rules::CompiledRegex compiled(prepared.posix, pattern.size() % 2 == 1);
  if (!compiled.error().empty()) return;
  std::vector<std::optional<std::string>> groups;
  for (size_t i = 1; i < lines.size() && i < 8; ++i) {
    std::string_view line = lines[i].substr(0, casefile::rules::kRegexWindowBytes);
    if (compiled.Match(line, false, false, &groups) &&
        groups.size() != compiled.group_count() + 1) {
      std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view text = input.substr(0, nul);
  const std::vector<std::string_view> lines =
      SplitLines(nul == std::string_view::npos ? std::string_view() : input.substr(nul + 1));

  casefile::rules::PackContext context;
  context.code_owner = [](const std::string& code) -> std::string {
    return code.rfind("comm_", 0) == 0 ? "the comm analyzer" : "";
  };
  context.known_code = [](const std::string& code) { return code.rfind("known_", 0) == 0; };
  context.name_refused = [](const std::string& name) -> std::string {
    return name == "builtin" ? "a built-in pack's name" : "";
  };
  casefile::rules::RulePack pack;
  const std::vector<casefile::rules::RuleError> errors =
      casefile::rules::ParseRulePack(text, "fuzz.json", context, pack);
  if (errors.empty()) {
    RunPack(pack, lines);
  } else {
    const size_t text_lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
    for (const auto& e : errors) {
      if (e.message.empty() || e.line > text_lines + 1) std::abort();
    }
    (void)casefile::rules::RuleErrorMessage("fuzz.json", errors);
  }
  if (!lines.empty()) RunPattern(lines[0], lines);
  return 0;
}
