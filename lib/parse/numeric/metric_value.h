// Numbers as training logs print them: Python floats and ints ("2.345",
// "1e-05", "2.345E+00", "65536.0"), and the spellings of non-finite values
// that Python, torch, numpy and JSON writers use (nan, NaN, NAN, -nan, inf,
// -inf, Inf, Infinity, -Infinity). No std::regex, no allocation.
#pragma once

#include <cstddef>
#include <string_view>

namespace casefile::numeric {

enum class ValueKind { kFinite, kNan, kPosInf, kNegInf };

struct MetricValue {
  double value = 0;  // NaN / +-infinity for the non-finite kinds
  ValueKind kind = ValueKind::kFinite;
  // The value as stored: the logged text for finite values (at most
  // kMaxValueText bytes), "nan", "inf" or "-inf" otherwise. Finite text
  // holds only digits, '.', 'e', 'E', '+' and '-'.
  std::string_view text;
  bool finite() const { return kind == ValueKind::kFinite; }
};

inline constexpr size_t kMaxValueText = 40;

// Reads a number starting exactly at s[pos]. Returns the number of bytes
// read, 0 when there is none there. A number must end at a boundary (the end, or
// a byte that is not a letter, digit or '_', or a '.' not followed by a
// digit), so "2.5x", "1.2.3", "nanny" and "information" are not numbers. `out->text` points into
// `s`, or to a static spelling for non-finite values.
size_t ReadMetricValue(std::string_view s, size_t pos, MetricValue* out);

// ReadMetricValue on the whole of `s` (surrounding blanks allowed); false
// when `s` is not exactly one number.
bool ParseMetricValue(std::string_view s, MetricValue* out);

}  // namespace casefile::numeric
