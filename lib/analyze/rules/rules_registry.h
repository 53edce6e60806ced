// The rule packs in use: the built-in packs compiled into the library and
// the packs added at run time (casefile_rules_add_*), all run by one "rules"
// analyzer in one pass over the lines (docs/RULES.md).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "analyze/analyzer.h"

namespace casefile::rules {

// The rules analyzer over the packs in use now, or nullptr when there are
// none. Immutable: adding or removing a pack makes a new one (with a new
// version, so stored findings are not reused across a change). Thread-safe.
std::shared_ptr<const Analyzer> CurrentRulesAnalyzer();

// The codes of the built-in packs (owned by "rules" like a built-in
// analyzer's codes: added packs and external analyzers may not emit them).
const std::vector<std::string>& BuiltinRuleCodes();

}  // namespace casefile::rules
