// Small text helpers shared by the metric form parsers (metric_forms.cc,
// key_value_form.cc). Internal to lib/parse/numeric.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/line/scan.h"
#include "parse/numeric/metric_forms.h"
#include "parse/numeric/metric_value.h"

namespace casefile::numeric::form {

inline constexpr size_t kNpos = std::string_view::npos;

inline size_t SkipBlanks(std::string_view s, size_t i) {
  while (i < s.size() && scan::IsBlank(s[i])) ++i;
  return i;
}

// The position just after `lit` found at or after `from`, or kNpos.
inline size_t After(std::string_view s, size_t from, std::string_view lit) {
  if (from > s.size()) return kNpos;
  const size_t at = s.find(lit, from);
  return at == kNpos ? kNpos : at + lit.size();
}

// A non-negative integer of at most 18 digits at s[i] (after blanks).
inline bool ReadCount(std::string_view s, size_t i, int64_t* v, size_t* end = nullptr) {
  i = SkipBlanks(s, i);
  uint64_t u = 0;
  const size_t n = scan::ReadUint(s, i, 18, &u);
  if (n == 0 || (i + n < s.size() && scan::IsDigit(s[i + n]))) return false;
  *v = static_cast<int64_t>(u);
  if (end) *end = i + n;
  return true;
}

// A metric value at s[i] after blanks, also inside "tensor(...)".
inline size_t ReadValueAt(std::string_view s, size_t i, MetricValue* v) {
  i = SkipBlanks(s, i);
  if (scan::LiteralAt(s, i, "tensor(")) i += 7;
  const size_t n = ReadMetricValue(s, i, v);
  return n == 0 ? 0 : i + n;
}

inline char ToLower(char c) { return scan::IsUpper(c) ? static_cast<char>(c | 0x20) : c; }

// Case-insensitive for ASCII letters only ('_' | 0x20 is not '_').
inline bool EqualsLower(std::string_view word, std::string_view lower) {
  if (word.size() != lower.size()) return false;
  if (word == lower) return true;  // logs mostly write keys in lower case
  for (size_t k = 0; k < word.size(); ++k) {
    if (ToLower(word[k]) != lower[k]) return false;
  }
  return true;
}

inline bool AllDigits(std::string_view s) {
  for (char c : s) {
    if (!scan::IsDigit(c)) return false;
  }
  return !s.empty();
}

inline bool IsCurveName(const char* name) {
  return name == kLoss || name == kEvalLoss || name == kGradNorm;
}

inline bool HasCurveValue(const LineMetrics& m) {
  for (size_t k = 0; k < m.count; ++k) {
    if (IsCurveName(m.items[k].name)) return true;
  }
  return false;
}
}  // namespace casefile::numeric::form
