// Metric values as logs print them: exponents, signs, the non-finite
// spellings of Python, numpy, torch and JSON writers, and what is not a
// number.
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <random>
#include <string>

#include "parse/numeric/metric_value.h"

namespace casefile::numeric {
namespace {

MetricValue Parse(std::string_view s) {
  MetricValue v;
  EXPECT_TRUE(ParseMetricValue(s, &v)) << s;
  return v;
}

TEST(MetricValue, FiniteForms) {
  EXPECT_EQ(Parse("2.345").value, 2.345);
  EXPECT_EQ(Parse("1e-05").value, 1e-05);
  EXPECT_EQ(Parse("2.345E+00").value, 2.345);
  EXPECT_EQ(Parse("65536.0").value, 65536.0);
  EXPECT_EQ(Parse("0.00e+00").value, 0.0);
  EXPECT_EQ(Parse("6.27e+04").value, 62700.0);
  EXPECT_EQ(Parse("-3.5").value, -3.5);
  EXPECT_EQ(Parse("+7").value, 7.0);
  EXPECT_EQ(Parse(".5").value, 0.5);
  EXPECT_EQ(Parse("3.").value, 3.0);
  EXPECT_EQ(Parse("1.0423075767883914").value, 1.0423075767883914);
  EXPECT_EQ(Parse("12345678901234567890").value, 12345678901234567890.0);
  EXPECT_EQ(Parse("2.5000").text, "2.5000");
  EXPECT_EQ(Parse("  2.5  ").text, "2.5");
  EXPECT_TRUE(Parse("1e-999").finite());
  EXPECT_EQ(Parse("1e-999").value, 0.0);
}

TEST(MetricValue, NonFiniteSpellings) {
  for (const char* s : {"nan", "NaN", "NAN", "-nan", "+nan"}) {
    const MetricValue v = Parse(s);
    EXPECT_EQ(v.kind, ValueKind::kNan) << s;
    EXPECT_TRUE(std::isnan(v.value)) << s;
    EXPECT_EQ(v.text, "nan") << s;
  }
  for (const char* s : {"inf", "Inf", "INF", "Infinity", "infinity", "+inf"}) {
    const MetricValue v = Parse(s);
    EXPECT_EQ(v.kind, ValueKind::kPosInf) << s;
    EXPECT_EQ(v.text, "inf") << s;
  }
  for (const char* s : {"-inf", "-Infinity", "-INF"}) {
    const MetricValue v = Parse(s);
    EXPECT_EQ(v.kind, ValueKind::kNegInf) << s;
    EXPECT_EQ(v.value, -INFINITY) << s;
    EXPECT_EQ(v.text, "-inf") << s;
  }
  // Overflowing literals are infinite, with the text of an infinity.
  EXPECT_EQ(Parse("1e999").kind, ValueKind::kPosInf);
  EXPECT_EQ(Parse("-1e999").text, "-inf");
}

TEST(MetricValue, NotNumbers) {
  MetricValue v;
  for (const char* s : {"", "x", "nanny", "information", "info", "infinite", "2.5x", "1.2.3", "--1",
                        "e5", ".", "-", "1e", "2,5", "0x10"}) {
    EXPECT_FALSE(ParseMetricValue(s, &v)) << s;
  }
  // "1e" is the number 1 followed by a word byte: not a number either.
  EXPECT_EQ(ReadMetricValue("1e", 0, &v), 0u);
  // Longer than the text limit.
  EXPECT_FALSE(ParseMetricValue(std::string(kMaxValueText + 1, '1'), &v));
}

TEST(MetricValue, ReadsToABoundary) {
  MetricValue v;
  EXPECT_EQ(ReadMetricValue("loss=2.5, step", 5, &v), 3u);
  EXPECT_EQ(v.text, "2.5");
  EXPECT_EQ(ReadMetricValue("2.5. Next", 0, &v), 3u);  // a sentence's full stop
  EXPECT_EQ(ReadMetricValue("nan)", 0, &v), 3u);
  EXPECT_EQ(ReadMetricValue("3.0e-4 ", 0, &v), 6u);
  EXPECT_EQ(v.value, 3.0e-4);
  EXPECT_EQ(ReadMetricValue("7|", 0, &v), 1u);
  EXPECT_EQ(ReadMetricValue("x", 5, &v), 0u);  // past the end
}

TEST(MetricValue, FastPathMatchesFromChars) {
  // The parser converts short decimals itself; it must give the correctly
  // rounded double that from_chars gives.
  std::mt19937_64 rng(11);
  for (int i = 0; i < 200000; ++i) {
    std::string s = std::to_string(rng() % 100000000);
    const size_t dot = rng() % (s.size() + 1);
    if (dot < s.size()) s.insert(dot, ".");
    if (rng() % 3 == 0) s += (rng() % 2 ? "e-" : "E+") + std::to_string(rng() % 25);
    double expected = 0;
    std::from_chars(s.data(), s.data() + s.size(), expected);
    MetricValue v;
    ASSERT_TRUE(ParseMetricValue(s, &v)) << s;
    ASSERT_EQ(v.value, expected) << s;
  }
}

}  // namespace
}  // namespace casefile::numeric
