#include "parse/numeric/metric_value.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>

#include "parse/line/scan.h"

namespace casefile::numeric {
namespace {

// A number ends at the end, or before a byte that cannot continue a word or
// a number: "2.5." ends a sentence, "1.2.3" is a version, "2.5x" a name.
bool AtBoundary(std::string_view s, size_t i) {
  if (i >= s.size()) return true;
  const char c = s[i];
  if (c == '.') return i + 1 >= s.size() || !scan::IsDigit(s[i + 1]);
  return !scan::IsAlnum(c) && c != '_';
}

// Case-insensitive literal at s[i]; `lower` is lower case.
bool WordAt(std::string_view s, size_t i, std::string_view lower) {
  if (i > s.size() || s.size() - i < lower.size()) return false;
  for (size_t k = 0; k < lower.size(); ++k) {
    if ((s[i + k] | 0x20) != lower[k]) return false;
  }
  return true;
}

}  // namespace

size_t ReadMetricValue(std::string_view s, size_t pos, MetricValue* out) {
  if (pos >= s.size()) return 0;
  size_t i = pos;
  bool negative = false;
  if (s[i] == '-' || s[i] == '+') {
    negative = s[i] == '-';
    ++i;
  }
  if (i >= s.size()) return 0;
  // Non-finite spellings. "infinity" is tried before "inf" so the longer
  // word is consumed whole.
  const char first = static_cast<char>(s[i] | 0x20);
  if (first == 'n' && WordAt(s, i, "nan") && AtBoundary(s, i + 3)) {
    out->kind = ValueKind::kNan;
    out->value = std::numeric_limits<double>::quiet_NaN();
    out->text = "nan";
    return i + 3 - pos;
  }
  if (first == 'i') {
    for (std::string_view word : {std::string_view("infinity"), std::string_view("inf")}) {
      if (WordAt(s, i, word) && AtBoundary(s, i + word.size())) {
        out->kind = negative ? ValueKind::kNegInf : ValueKind::kPosInf;
        out->value = negative ? -std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::infinity();
        out->text = negative ? "-inf" : "inf";
        return i + word.size() - pos;
      }
    }
    return 0;
  }
  // A finite number: digits [. digits] [e [+-] digits], or . digits. The
  // digits are gathered on the way for the fast path below.
  size_t j = i;
  size_t digits = 0, significant = 0;
  int scale = 0;  // power of ten of the last digit gathered
  uint64_t mantissa = 0;
  auto gather = [&](char c, bool fraction) {
    ++digits;
    if (mantissa == 0 && c == '0') {
      if (fraction) --scale;
      return;
    }
    if (significant < 19) {
      mantissa = mantissa * 10 + static_cast<uint64_t>(c - '0');
      ++significant;
      if (fraction) --scale;
    } else if (!fraction) {
      ++scale;
    }
  };
  while (j < s.size() && scan::IsDigit(s[j])) gather(s[j++], false);
  if (j < s.size() && s[j] == '.') {
    ++j;
    while (j < s.size() && scan::IsDigit(s[j])) gather(s[j++], true);
  }
  if (digits == 0) return 0;
  int exponent = 0;
  bool exponent_ok = true;
  if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
    size_t k = j + 1;
    const bool exp_negative = k < s.size() && s[k] == '-';
    if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
    size_t exp_digits = 0;
    while (k < s.size() && scan::IsDigit(s[k])) {
      if (exp_digits++ < 5) exponent = exponent * 10 + (s[k] - '0');
      ++k;
    }
    exponent_ok = exp_digits < 5;
    if (exp_negative) exponent = -exponent;
    if (exp_digits > 0) j = k;
  }
  if (!AtBoundary(s, j) || j - pos > kMaxValueText) return 0;
  double v = 0;
  // Clinger's fast path: a mantissa below 2^53 and a power of ten up to 22
  // are exact doubles, so one multiplication or division rounds correctly.
  // Everything else (long mantissas, large exponents) goes to from_chars.
  static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const int p10 = scale + exponent;
  if (exponent_ok && mantissa < (uint64_t{1} << 53) && p10 >= -22 && p10 <= 22) {
    v = static_cast<double>(mantissa);
    v = p10 < 0 ? v / kPow10[-p10] : v * kPow10[p10];
  } else {
    // from_chars takes no leading '+'; it reads what the loop above accepted.
    const auto res = std::from_chars(s.data() + i, s.data() + j, v);
    if (res.ec == std::errc::result_out_of_range) {
      // 1e999 overflows to infinity, 1e-999 underflows to zero.
      const size_t e = s.substr(i, j - i).find_first_of("eE");
      const bool tiny = e != std::string_view::npos && s[i + e + 1] == '-';
      v = tiny ? 0.0 : std::numeric_limits<double>::infinity();
    } else if (res.ec != std::errc() || res.ptr != s.data() + j) {
      return 0;
    }
  }
  out->value = negative ? -v : v;
  out->kind = std::isinf(out->value) ? (negative ? ValueKind::kNegInf : ValueKind::kPosInf)
                                     : ValueKind::kFinite;
  out->text =
      out->kind == ValueKind::kFinite ? s.substr(pos, j - pos) : (negative ? "-inf" : "inf");
  return j - pos;
}

bool ParseMetricValue(std::string_view s, MetricValue* out) {
  size_t b = 0, e = s.size();
  while (b < e && scan::IsBlank(s[b])) ++b;
  while (e > b && scan::IsBlank(s[e - 1])) --e;
  if (b == e) return false;
  return ReadMetricValue(s.substr(b, e - b), 0, out) == e - b;
}

}  // namespace casefile::numeric
