#include "analyze/registry.h"

#include <algorithm>
#include <mutex>

#include "analyze/analyzers/build/build_analyzer.h"
#include "analyze/analyzers/comm/comm_analyzer.h"
#include "analyze/analyzers/hang/hang_analyzer.h"
#include "analyze/analyzers/numeric/numeric_analyzer.h"
#include "analyze/analyzers/runtime/runtime_analyzer.h"
#include "analyze/rules/rules_registry.h"
#include "common/error.h"

namespace casefile {
namespace {

constexpr const char* kRulesName = "rules";

// External analyzers, in registration order. Guarded by ExternalMutex();
// the list is copied into each snapshot, so a run never holds the lock.
std::mutex& ExternalMutex() {
  static std::mutex m;
  return m;
}
AnalyzerList& External() {
  static AnalyzerList* list = new AnalyzerList();
  return *list;
}

// Built-in analyzers as shared pointers that do not own them (they live for
// the process), so snapshots can mix them with external ones.
const AnalyzerList& BuiltinShared() {
  static const AnalyzerList* list = [] {
    auto* out = new AnalyzerList();
    for (const auto& a : BuiltinAnalyzers()) {
      out->push_back(std::shared_ptr<const Analyzer>(std::shared_ptr<const Analyzer>(), a.get()));
    }
    return out;
  }();
  return *list;
}

}  // namespace

const std::vector<std::unique_ptr<Analyzer>>& BuiltinAnalyzers() {
  static const auto* analyzers = [] {
    auto* list = new std::vector<std::unique_ptr<Analyzer>>();
    // One line per analyzer.
    list->push_back(MakeBuildAnalyzer());
    list->push_back(MakeCommAnalyzer());
    list->push_back(MakeHangAnalyzer());
    list->push_back(MakeNumericAnalyzer());
    list->push_back(MakeRuntimeAnalyzer());
    std::sort(list->begin(), list->end(),
              [](const auto& a, const auto& b) { return a->info().name < b->info().name; });
    return list;
  }();
  return *analyzers;
}

AnalyzerList AllAnalyzers() {
  AnalyzerList out = BuiltinShared();
  if (auto rules = rules::CurrentRulesAnalyzer()) out.push_back(std::move(rules));
  std::lock_guard<std::mutex> lock(ExternalMutex());
  const AnalyzerList& external = External();
  out.insert(out.end(), external.begin(), external.end());
  return out;
}

bool IsReservedAnalyzerName(const std::string& name) {
  if (name == kRulesName) return true;
  for (const auto& a : BuiltinAnalyzers()) {
    if (a->info().name == name) return true;
  }
  return false;
}

std::string BuiltinCodeOwner(const std::string& code) {
  for (const auto& a : BuiltinAnalyzers()) {
    const auto& codes = a->info().codes;
    if (std::find(codes.begin(), codes.end(), code) != codes.end()) return a->info().name;
  }
  const auto& rule_codes = rules::BuiltinRuleCodes();
  if (std::find(rule_codes.begin(), rule_codes.end(), code) != rule_codes.end()) return kRulesName;
  return "";
}

void RegisterAnalyzer(std::shared_ptr<const Analyzer> analyzer) {
  if (!analyzer) throw Error(ErrorCode::kArgument, "no analyzer given");
  const std::string& name = analyzer->info().name;
  if (IsReservedAnalyzerName(name)) {
    throw Error(ErrorCode::kArgument, "'" + name + "' is the name of a built-in analyzer");
  }
  std::lock_guard<std::mutex> lock(ExternalMutex());
  AnalyzerList& external = External();
  for (const auto& a : external) {
    if (a->info().name == name) {
      throw Error(ErrorCode::kArgument, "an analyzer named '" + name + "' is already registered");
    }
  }
  external.push_back(std::move(analyzer));
}

bool UnregisterAnalyzer(const std::string& name) {
  std::shared_ptr<const Analyzer> removed;  // released after the lock
  std::lock_guard<std::mutex> lock(ExternalMutex());
  AnalyzerList& external = External();
  auto it = std::find_if(external.begin(), external.end(),
                         [&](const auto& a) { return a->info().name == name; });
  if (it == external.end()) return false;
  removed = std::move(*it);
  external.erase(it);
  return true;
}

}  // namespace casefile
