// Expected epoch values were computed with `date -u -d '<date> UTC' +%s`, not
// with the code under test.
#include <gtest/gtest.h>

#include "parse/line/timestamp.h"

namespace casefile {
namespace {

constexpr int64_t kUs = 1000000;

TEST(DaysFromCivil, KnownDates) {
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(DaysFromCivil(1969, 12, 31), -1);
  EXPECT_EQ(DaysFromCivil(2000, 2, 29), 11016);  // 951782400 / 86400
  EXPECT_EQ(DaysFromCivil(2024, 2, 29), 19782);
  EXPECT_EQ(DaysFromCivil(1600, 1, 1), -135140);
  EXPECT_EQ(DaysFromCivil(2000, 3, 1), 951868800 / 86400);
  EXPECT_EQ(DaysFromCivil(2100, 3, 1), 4107542400 / 86400);
}

TEST(ParseIsoTime, ZuluWithMilliseconds) {
  const ParsedTime t = ParseIsoTime("2026-11-29T09:21:26.123Z rest");
  EXPECT_EQ(t.consumed, 24u);
  EXPECT_EQ(t.us, 1795944086 * kUs + 123000);
}

TEST(ParseIsoTime, PythonLoggingCommaFraction) {
  const ParsedTime t = ParseIsoTime("2026-11-29 09:21:26,123 - x");
  EXPECT_EQ(t.consumed, 23u);
  EXPECT_EQ(t.us, 1795944086 * kUs + 123000);
}

TEST(ParseIsoTime, NoFractionNoZone) {
  const ParsedTime t = ParseIsoTime("2024-05-01 12:00:00");
  EXPECT_EQ(t.consumed, 19u);
  EXPECT_EQ(t.us, 1714564800 * kUs);
}

TEST(ParseIsoTime, FractionsOfOneToNineDigits) {
  const int64_t base = 1714564800 * kUs;
  EXPECT_EQ(ParseIsoTime("2024-05-01T12:00:00.5Z").us, base + 500000);
  EXPECT_EQ(ParseIsoTime("2024-05-01T12:00:00.05Z").us, base + 50000);
  EXPECT_EQ(ParseIsoTime("2024-05-01T12:00:00.123Z").us, base + 123000);
  EXPECT_EQ(ParseIsoTime("2024-05-01T12:00:00.123456Z").us, base + 123456);
  EXPECT_EQ(ParseIsoTime("2024-05-01T12:00:00.1234567Z").us, base + 123456);
  const ParsedTime nine = ParseIsoTime("2024-05-01T12:00:00.123456789Z");
  EXPECT_EQ(nine.us, base + 123456);
  EXPECT_EQ(nine.consumed, 30u);
  // Ten digits is not a time we know.
  EXPECT_EQ(ParseIsoTime("2024-05-01T12:00:00.1234567891Z").consumed, 0u);
}

TEST(ParseIsoTime, OffsetsAreConvertedToUtc) {
  // 12:00 at +02:00 is 10:00Z.
  EXPECT_EQ(ParseIsoTime("2024-05-01T12:00:00+02:00").us, 1714557600 * kUs);
  EXPECT_EQ(ParseIsoTime("2024-05-01T12:00:00+0200").us, 1714557600 * kUs);
  EXPECT_EQ(ParseIsoTime("2024-05-01T12:00:00+02").us, 1714557600 * kUs);
  EXPECT_EQ(ParseIsoTime("2024-05-01T12:00:00+02:00").consumed, 25u);
  EXPECT_EQ(ParseIsoTime("2024-05-01T12:00:00+0200 x").consumed, 24u);
}

TEST(ParseIsoTime, OffsetsCrossingMidnightAndYear) {
  // 2024-01-01 01:30 at +02:00 is 2023-12-31 23:30Z.
  EXPECT_EQ(ParseIsoTime("2024-01-01T01:30:00+02:00").us, 1704065400 * kUs);
  // 2023-12-31 22:00 at -05:00 is 2024-01-01 03:00Z.
  EXPECT_EQ(ParseIsoTime("2023-12-31T22:00:00-05:00").us, 1704078000 * kUs);
}

TEST(ParseIsoTime, DmesgIsoFormat) {
  // 14:55:41,679700 at +02:00 is 12:55:41.6797Z.
  const ParsedTime t = ParseIsoTime("2024-04-29T14:55:41,679700+02:00 Out of memory");
  EXPECT_EQ(t.consumed, 32u);
  EXPECT_EQ(t.us, 1714395341 * kUs + 679700);
}

TEST(ParseIsoTime, LeapYears) {
  EXPECT_EQ(ParseIsoTime("2024-02-29 12:00:00").us, 1709208000 * kUs);
  EXPECT_EQ(ParseIsoTime("2000-02-29 00:00:00").us, 951782400 * kUs);
  EXPECT_EQ(ParseIsoTime("2023-02-29 00:00:00").consumed, 0u);
  EXPECT_EQ(ParseIsoTime("1900-02-29 00:00:00").consumed, 0u);  // century, not leap
  EXPECT_EQ(ParseIsoTime("2100-02-29 00:00:00").consumed, 0u);
}

TEST(ParseIsoTime, LeapSecondLandsOnNextMinute) {
  EXPECT_EQ(ParseIsoTime("2024-12-31T23:59:60Z").us, 1735689600 * kUs);
}

TEST(ParseIsoTime, BeforeEpoch) { EXPECT_EQ(ParseIsoTime("1969-12-31T23:59:59Z").us, -1 * kUs); }

TEST(ParseIsoTime, RejectsImpossibleValues) {
  EXPECT_EQ(ParseIsoTime("2024-13-01 00:00:00").consumed, 0u);
  EXPECT_EQ(ParseIsoTime("2024-00-01 00:00:00").consumed, 0u);
  EXPECT_EQ(ParseIsoTime("2024-01-32 00:00:00").consumed, 0u);
  EXPECT_EQ(ParseIsoTime("2024-04-31 00:00:00").consumed, 0u);
  EXPECT_EQ(ParseIsoTime("2024-01-00 00:00:00").consumed, 0u);
  EXPECT_EQ(ParseIsoTime("2024-01-01 25:00:00").consumed, 0u);
  EXPECT_EQ(ParseIsoTime("2024-01-01 24:00:00").consumed, 0u);
  EXPECT_EQ(ParseIsoTime("2024-01-01 23:60:00").consumed, 0u);
  EXPECT_EQ(ParseIsoTime("2024-01-01 23:59:61").consumed, 0u);
  EXPECT_EQ(ParseIsoTime("2024-01-01T12:00:00+25:00").consumed, 0u);
}

TEST(ParseIsoTime, RejectsMalformedAndCutText) {
  EXPECT_EQ(ParseIsoTime("").consumed, 0u);
  EXPECT_EQ(ParseIsoTime("2024-01-01").consumed, 0u);
  EXPECT_EQ(ParseIsoTime("2024-01-01 12:00").consumed, 0u);
  EXPECT_EQ(ParseIsoTime("2024-01-01 12:00:0").consumed, 0u);
  EXPECT_EQ(ParseIsoTime("2024/01/01 12:00:00").consumed, 0u);
  EXPECT_EQ(ParseIsoTime("2024-01-01_12:00:00").consumed, 0u);
  EXPECT_EQ(ParseIsoTime("24-01-01 12:00:00").consumed, 0u);
  EXPECT_EQ(ParseIsoTime("2024-1-01 12:00:00").consumed, 0u);
}

TEST(ParseIsoTime, DanglingSeparatorsAreNotConsumed) {
  // A '.' without digits, or a '-' that starts text, is not part of the time.
  EXPECT_EQ(ParseIsoTime("2024-05-01 12:00:00. next").consumed, 19u);
  EXPECT_EQ(ParseIsoTime("2024-05-01 12:00:00-foo").consumed, 19u);
  EXPECT_EQ(ParseIsoTime("2024-05-01 12:00:00-foo").us, 1714564800 * kUs);
}

TEST(ParseGlogTime, FourDigitDate) {
  const ParsedTime t = ParseGlogTime("1129 09:21:26.123456  1234 file.cc:12]", 2026);
  EXPECT_EQ(t.consumed, 20u);
  EXPECT_EQ(t.us, 1795944086 * kUs + 123456);
}

TEST(ParseGlogTime, TorchUnpaddedMonthAndNanoseconds) {
  const ParsedTime t = ParseGlogTime("321 02:07:08.465150152 ProcessGroupNCCL.cpp:1664]", 2025);
  EXPECT_EQ(t.consumed, 22u);
  EXPECT_EQ(t.us, 1742522828 * kUs + 465150);
}

TEST(ParseGlogTime, ZeroPaddedMonthWithoutFraction) {
  EXPECT_EQ(ParseGlogTime("0325 20:57:27 x", 2025).us, 1742936247 * kUs);
  EXPECT_EQ(ParseGlogTime("0325 20:57:27 x", 2025).consumed, 13u);
}

TEST(ParseGlogTime, UsesTheGivenYearAndItsLeapDay) {
  EXPECT_EQ(ParseGlogTime("1129 09:21:26", 2024).us, 1732872086 * kUs);
  EXPECT_EQ(ParseGlogTime("0229 09:21:26", 2024).us, 1709198486 * kUs);
  EXPECT_EQ(ParseGlogTime("0229 09:21:26", 2025).consumed, 0u);
}

TEST(ParseGlogTime, RejectsInvalid) {
  EXPECT_EQ(ParseGlogTime("1329 09:21:26", 2024).consumed, 0u);  // month 13
  EXPECT_EQ(ParseGlogTime("1132 09:21:26", 2024).consumed, 0u);  // day 32
  EXPECT_EQ(ParseGlogTime("1129 25:21:26", 2024).consumed, 0u);  // hour 25
  EXPECT_EQ(ParseGlogTime("11290 09:21:26", 2024).consumed, 0u);
  EXPECT_EQ(ParseGlogTime("29 09:21:26", 2024).consumed, 0u);
  EXPECT_EQ(ParseGlogTime("1129 09:21", 2024).consumed, 0u);
  EXPECT_EQ(ParseGlogTime("1129 09:21:26.1234567890", 2024).consumed, 0u);
}

TEST(ParseMonthDayTime, Vllm) {
  const ParsedTime t = ParseMonthDayTime("10-18 09:59:56 gpu_executor.py:122]", 2026);
  EXPECT_EQ(t.consumed, 14u);
  EXPECT_EQ(t.us, 1792317596 * kUs);
  EXPECT_EQ(ParseMonthDayTime("13-18 09:59:56", 2026).consumed, 0u);
}

TEST(ParseSyslogTime, TwoDigitAndPaddedDays) {
  EXPECT_EQ(ParseSyslogTime("May 15 23:09:30 host kernel:", 2024).us, 1715814570 * kUs);
  EXPECT_EQ(ParseSyslogTime("May 15 23:09:30 host kernel:", 2024).consumed, 15u);
  EXPECT_EQ(ParseSyslogTime("May  5 23:09:30 host", 2024).us, 1714950570 * kUs);
  EXPECT_EQ(ParseSyslogTime("May  5 23:09:30 host", 2024).consumed, 15u);
  EXPECT_EQ(ParseSyslogTime("May 5 23:09:30 host", 2024).us, 1714950570 * kUs);
}

TEST(ParseSyslogTime, RejectsInvalid) {
  EXPECT_EQ(ParseSyslogTime("Foo 15 23:09:30", 2024).consumed, 0u);
  EXPECT_EQ(ParseSyslogTime("may 15 23:09:30", 2024).consumed, 0u);
  EXPECT_EQ(ParseSyslogTime("Feb 30 23:09:30", 2024).consumed, 0u);
  EXPECT_EQ(ParseSyslogTime("Feb 29 23:09:30", 2023).consumed, 0u);
  EXPECT_EQ(ParseSyslogTime("Nov 29 25:09:30", 2024).consumed, 0u);
  EXPECT_EQ(ParseSyslogTime("Nov 129 23:09:30", 2024).consumed, 0u);
  EXPECT_EQ(ParseSyslogTime("Nov", 2024).consumed, 0u);
}

TEST(ParseCtime, DmesgT) {
  const ParsedTime t = ParseCtime("Sun Mar 30 08:24:00 2025] oom-kill");
  EXPECT_EQ(t.consumed, 24u);
  EXPECT_EQ(t.us, 1743323040 * kUs);
}

TEST(ParseCtime, PaddedDay) {
  // 2024-05-05 23:09:30 was a Sunday.
  const ParsedTime t = ParseCtime("Sun May  5 23:09:30 2024");
  EXPECT_EQ(t.consumed, 24u);
  EXPECT_EQ(t.us, 1714950570 * kUs);
}

TEST(ParseCtime, RejectsInvalid) {
  EXPECT_EQ(ParseCtime("Sux Mar 30 08:24:00 2025").consumed, 0u);
  EXPECT_EQ(ParseCtime("Sun Mar 32 08:24:00 2025").consumed, 0u);
  EXPECT_EQ(ParseCtime("Sun Mar 30 08:24:00.5 2025").consumed, 0u);
  EXPECT_EQ(ParseCtime("Sun Mar 30 08:24:00 20251").consumed, 0u);
  EXPECT_EQ(ParseCtime("Sun Mar 30 08:24:00 25").consumed, 0u);
  EXPECT_EQ(ParseCtime("Sun Mar 30 08:24:00").consumed, 0u);
}

}  // namespace
}  // namespace casefile
