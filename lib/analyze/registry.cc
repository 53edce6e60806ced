#include "analyze/registry.h"

#include <algorithm>

#include "analyze/analyzers/build/build_analyzer.h"
#include "analyze/analyzers/comm/comm_analyzer.h"
#include "analyze/analyzers/hang/hang_analyzer.h"
#include "analyze/analyzers/numeric/numeric_analyzer.h"
#include "analyze/analyzers/runtime/runtime_analyzer.h"

namespace casefile {

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

}  // namespace casefile
