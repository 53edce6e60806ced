// Placeholder until the rule engine lands: no packs.
#include "analyze/rules/rules_registry.h"

namespace casefile::rules {

std::shared_ptr<const Analyzer> CurrentRulesAnalyzer() { return nullptr; }

const std::vector<std::string>& BuiltinRuleCodes() {
  static const std::vector<std::string> none;
  return none;
}

}  // namespace casefile::rules
