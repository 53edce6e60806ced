// The analyzer list an analysis runs (registry.h, AllAnalyzers()): built-in,
// then "rules", then external ones. The strings handed out must outlive the
// snapshot each call takes, and an external analyzer (or the rules analyzer,
// replaced whenever a pack is added or removed) may be released by another
// thread the moment that snapshot is gone. So only built-in analyzers, which
// live for the process, hand out their own strings; every other string is
// interned here for the process, one copy per distinct text, which bounds
// the memory by what was ever registered, not by how often it was asked.
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
    return IsBuiltin(all[index].get()) ? text.c_str() : Intern(text);
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
