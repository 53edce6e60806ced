// The analyzers an analysis runs: the built-in ones (one line each in
// registry.cc), the "rules" analyzer holding every rule pack in use
// (analyze/rules/), and external analyzers registered at run time (the C
// API's casefile_analyzer_register, plugins). Adding a built-in analyzer
// touches its own folder (analyzers/<name>/), the list in registry.cc, and
// its tests.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "analyze/analyzer.h"

namespace casefile {

// All built-in analyzers, in the order they run (name order).
const std::vector<std::unique_ptr<Analyzer>>& BuiltinAnalyzers();

using AnalyzerList = std::vector<std::shared_ptr<const Analyzer>>;

// What an analysis starting now runs: the built-in analyzers, then the rules
// analyzer (when any pack is in use), then external analyzers in
// registration order. A snapshot: later registrations do not change it, and
// it keeps every analyzer in it alive. Thread-safe.
AnalyzerList AllAnalyzers();

// True for the names of built-in analyzers and "rules".
bool IsReservedAnalyzerName(const std::string& name);
// The analyzer (built-in or "rules") that owns a built-in finding code, or ""
// when no built-in analyzer declares it.
std::string BuiltinCodeOwner(const std::string& code);

// Adds an external analyzer. Throws Error(kArgument) when its name is
// reserved or already registered. Thread-safe.
void RegisterAnalyzer(std::shared_ptr<const Analyzer> analyzer);
// Removes an external analyzer; false when none has that name. The object
// lives on until the last snapshot holding it is gone. Thread-safe.
bool UnregisterAnalyzer(const std::string& name);

}  // namespace casefile
