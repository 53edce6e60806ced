// The rule packs in use: the built-in packs compiled into the library and
// the packs added at run time (casefile_rules_add_*), all run by one "rules"
// analyzer in one pass over the lines (docs/RULES.md).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/analyzer.h"
#include "analyze/rules/rule_pack.h"

namespace casefile::rules {

// The rules analyzer over the packs in use now, or nullptr when there are
// none. Immutable: adding or removing a pack makes a new one (with a new
// version, so stored findings are not reused across a change). Thread-safe.
std::shared_ptr<const Analyzer> CurrentRulesAnalyzer();

// The codes of the built-in packs (owned by "rules" like a built-in
// analyzer's codes: added packs and external analyzers may not emit them).
const std::vector<std::string>& BuiltinRuleCodes();

// The built-in packs, validated at first use. Throws Error(kInternal) when
// one does not validate (a bug: tests check every built-in pack).
const std::vector<std::shared_ptr<const RulePack>>& BuiltinRulePacks();

// Every pack in use: built-in first (file name order), then added ones in
// the order they were first added. Thread-safe snapshot.
std::vector<std::shared_ptr<const RulePack>> RulePacksInUse();

// Validates `text` against the packs in use (codes not owned elsewhere,
// absent_if naming known codes, not a built-in pack's name) and adds it,
// replacing an added pack of the same name. Throws Error(kRules) with
// RuleErrorMessage's text. Thread-safe.
void AddRulePack(std::string_view text, const std::string& source);
// Removes an added pack. Throws Error(kArgument) for a built-in or unknown
// name. Thread-safe.
void RemoveRulePack(const std::string& name);
// Validates `text` on its own merits against the packs in use, adding
// nothing; the errors, empty when valid. Unlike AddRulePack it accepts the
// name of a built-in pack (a copy of a built-in pack file checks clean,
// though adding it would be refused), and a pack's codes conflict only with
// packs of other names.
std::vector<RuleError> CheckRulePack(std::string_view text, const std::string& source);

// Reads a pack file; throws Error(kNotFound) or Error(kIo).
std::string ReadRulePackFile(const std::string& path);

// Every pack in use and its rules as JSON (docs/RULES.md, "Listing").
std::string DescribeRulePacks();

}  // namespace casefile::rules
