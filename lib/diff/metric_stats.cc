#include "diff/metric_stats.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>

namespace casefile::diff {

std::optional<double> Quantile(std::vector<double> values, double q) {
  if (values.empty()) return std::nullopt;
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(values.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const double frac = pos - static_cast<double>(lo);
  // The two order statistics around pos, in linear time (a sort was most of
  // a diff's time on runs that log every rank's step time): nth_element puts
  // the lo-th in place and only larger-or-equal values after it.
  const auto at = values.begin() + static_cast<std::ptrdiff_t>(lo);
  std::nth_element(values.begin(), at, values.end());
  const double lo_value = *at;
  const double hi_value =
      lo + 1 < values.size() ? *std::min_element(at + 1, values.end()) : lo_value;
  return lo_value + (hi_value - lo_value) * frac;
}

namespace {
std::string Printf(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}
}  // namespace

std::string FormatSeconds(double seconds) {
  const double a = std::fabs(seconds);
  if (a >= 1.0) return Printf("%.3g s", seconds);
  if (a >= 1e-3) return Printf("%.3g ms", seconds * 1e3);
  return Printf("%.3g us", seconds * 1e6);
}

std::string FormatNumber(double value) { return Printf("%.4g", value); }

std::string FormatPercent(double share) { return Printf("%.1f%%", share * 100.0); }

std::string FormatRatio(double ratio) { return Printf("%.2fx", ratio); }

bool HasTable(const IndexReader& index, const char* name) {
  bool found = false;
  index.Query(
      std::string("SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = '") +
          name + "'",
      [&](const QueryRow&) {
        found = true;
        return false;
      });
  return found;
}

}  // namespace casefile::diff
