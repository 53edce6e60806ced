// The analyzer list an analysis runs (registry.h, AllAnalyzers()): built-in,
// then "rules", then external ones. The pointers handed out must outlive
// the snapshot each call takes: built-in analyzers live for the process, an
// external one until it is unregistered (the registry holds it till then),
// and the rules analyzer's strings are interned here since the analyzer
// object is replaced whenever a pack is added or removed.
#include <mutex>
#include <set>
#include <string>

#include "analyze/registry.h"
#include "capi_internal.h"

namespace {

// Strings kept for the process, one copy each.
const char* Intern(const std::string& text) {
  static std::mutex mutex;
  static auto* strings = new std::set<std::string>();
  std::lock_guard<std::mutex> lock(mutex);
  return strings->insert(text).first->c_str();
}

bool IsBuiltin(const casefile::Analyzer* analyzer) {
  for (const auto& a : casefile::BuiltinAnalyzers()) {
    if (a.get() == analyzer) return true;
  }
  return false;
}

// Which string of analyzer `index`; NULL out of range or on failure (a
// failure to allocate must not escape into C).
enum class Field { kName, kDescription };
const char* AnalyzerString(size_t index, Field field) noexcept {
  try {
    const casefile::AnalyzerList all = casefile::AllAnalyzers();
    if (index >= all.size()) return nullptr;
    const casefile::AnalyzerInfo& info = all[index]->info();
    const std::string& text = field == Field::kName ? info.name : info.description;
    const bool registry_held =
        IsBuiltin(all[index].get()) || !casefile::IsReservedAnalyzerName(info.name);
    return registry_held ? text.c_str() : Intern(text);
  } catch (...) {
    return nullptr;
  }
}

}  // namespace

extern "C" {

size_t casefile_analyzer_count(void) {
  try {
    return casefile::AllAnalyzers().size();
  } catch (...) {
    return 0;
  }
}

const char* casefile_analyzer_name(size_t index) { return AnalyzerString(index, Field::kName); }

const char* casefile_analyzer_description(size_t index) {
  return AnalyzerString(index, Field::kDescription);
}

}  // extern "C"
