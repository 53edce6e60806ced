#include "analyze/query_values.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace casefile {

std::optional<int64_t> IntOf(const QueryValue& v) {
  if (!v) return std::nullopt;
  int64_t out = 0;
  const auto res = std::from_chars(v->data(), v->data() + v->size(), out);
  if (res.ec != std::errc() || res.ptr != v->data() + v->size()) return std::nullopt;
  return out;
}

std::optional<double> RealOf(const QueryValue& v) {
  if (!v || v->empty()) return std::nullopt;
  char* end = nullptr;
  const double d = std::strtod(v->c_str(), &end);
  if (end != v->c_str() + v->size() || !std::isfinite(d)) return std::nullopt;
  return d;
}

}  // namespace casefile
