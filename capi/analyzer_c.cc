// The built-in analyzer list. Names and descriptions live in the registry's
// static analyzers, so the pointers handed out stay valid for the process.
#include "analyze/registry.h"
#include "capi_internal.h"

namespace {

// The registry is built on first use; its construction allocating and failing
// must not escape into C, so a failure reads as an empty list.
const std::vector<std::unique_ptr<casefile::Analyzer>>* Registry() noexcept {
  try {
    return &casefile::BuiltinAnalyzers();
  } catch (...) {
    return nullptr;
  }
}

}  // namespace

extern "C" {

size_t casefile_analyzer_count(void) {
  const auto* registry = Registry();
  return registry == nullptr ? 0 : registry->size();
}

const char* casefile_analyzer_name(size_t index) {
  const auto* registry = Registry();
  if (registry == nullptr || index >= registry->size()) return nullptr;
  return (*registry)[index]->info().name.c_str();
}

const char* casefile_analyzer_description(size_t index) {
  const auto* registry = Registry();
  if (registry == nullptr || index >= registry->size()) return nullptr;
  return (*registry)[index]->info().description.c_str();
}

}  // extern "C"
