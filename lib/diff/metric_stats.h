// Small numeric and text helpers shared by the metrics, hlo and traces
// sections of the diff: robust statistics over a few thousand values and the
// way numbers are written in item values and summaries.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "index/index_reader.h"

namespace casefile::diff {

// The q-quantile (0..1) by linear interpolation between order statistics
// (so the median of an even count is the mean of the middle two); nullopt for
// an empty input.
std::optional<double> Quantile(std::vector<double> values, double q);
inline std::optional<double> Median(std::vector<double> values) {
  return Quantile(std::move(values), 0.5);
}

// "1.20 s", "412 ms", "35.0 us": three significant digits, unit by size.
std::string FormatSeconds(double seconds);
// "2.345", "0.0123", "1.2e+05": four significant digits.
std::string FormatNumber(double value);
// A share 0..1 as "23.4%".
std::string FormatPercent(double share);
// "1.62x".
std::string FormatRatio(double ratio);

// True when the index has this table or view (indexes written by older
// versions lack some).
bool HasTable(const IndexReader& index, const char* name);

}  // namespace casefile::diff
