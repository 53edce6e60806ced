// The list of built-in analyzers: one place, one line each. Adding an
// analyzer touches its own folder (analyzers/<name>/), this list, and its tests.
#pragma once

#include <memory>
#include <vector>

#include "analyze/analyzer.h"

namespace casefile {

// All built-in analyzers, in the order they run (name order).
const std::vector<std::unique_ptr<Analyzer>>& BuiltinAnalyzers();

}  // namespace casefile
