// Turns what the numeric rules found into numeric.* findings (see
// docs/FINDINGS.md, section "numeric"). Separate from the analyzer so that
// the rules and texts can be tested without an index: the caller supplies
// the facts and functions that cite a line and name a file.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analyze/analyzers/numeric/numeric_inputs.h"
#include "analyze/analyzers/numeric/numeric_rules.h"
#include "analyze/finding.h"

namespace casefile::numeric {

inline constexpr const char* kAnalyzerName = "numeric";
// Reports, series or groups cited per finding.
inline constexpr size_t kMaxCited = 8;

// A DebugUnderflowOverflow table with what the rules found in it.
struct TableFacts {
  OverflowFacts overflow;           // points to its FrameTable, which must outlive it
  std::optional<Growth> growth;     // from the traces of the same file and rank
  std::vector<DetectLine> detects;  // detect_overflow lines of that rank before it
};

struct NumericFacts {
  std::vector<TableFacts> reports;          // "overflow" tables
  std::vector<TableFacts> trace_overflows;  // "trace" tables holding inf/nan
  std::vector<CurveFacts> curves;           // series with a nan, a spike or an inferred nan
  std::vector<ScaleFacts> scales;           // groups whose scaler collapsed
  PrecisionInputs precision;
  double min_loss_scale = 1;
};

using EvidenceFn = std::function<Evidence(const LineRef& line)>;
using PathFn = std::function<std::string(int64_t file_id)>;

// At most one finding per code, analyzer "numeric", not yet normalized.
std::vector<Finding> BuildNumericFindings(const NumericFacts& facts, const EvidenceFn& evidence,
                                          const PathFn& path);

}  // namespace casefile::numeric
