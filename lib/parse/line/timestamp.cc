#include "parse/line/timestamp.h"

#include "parse/line/scan.h"

namespace casefile {
namespace {

using scan::At;
using scan::IsDigit;
using scan::ReadFixed;

constexpr int64_t kUsPerSecond = 1000000;

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

unsigned DaysInMonth(int64_t y, unsigned m) {
  static constexpr unsigned kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

bool ValidDate(int64_t y, unsigned m, unsigned d) {
  return m >= 1 && m <= 12 && d >= 1 && d <= DaysInMonth(y, m);
}

// "HH:MM:SS" then, if `fraction_seps` holds the next byte, 1 to 9 fraction
// digits. On success stores the microseconds of the day and the offset after
// the clock.
bool ParseClock(std::string_view s, size_t i, std::string_view fraction_seps, int64_t* day_us,
                size_t* end) {
  unsigned h, m, sec;
  if (!ReadFixed(s, i, 2, &h) || !At(s, i + 2, ':') || !ReadFixed(s, i + 3, 2, &m) ||
      !At(s, i + 5, ':') || !ReadFixed(s, i + 6, 2, &sec)) {
    return false;
  }
  if (h > 23 || m > 59 || sec > 60) return false;
  size_t j = i + 8;
  int64_t frac_us = 0;
  if (j < s.size() && fraction_seps.find(s[j]) != std::string_view::npos && j + 1 < s.size() &&
      IsDigit(s[j + 1])) {
    ++j;
    size_t digits = 0;
    while (j < s.size() && IsDigit(s[j])) {
      if (++digits > 9) return false;
      if (digits <= 6) frac_us = frac_us * 10 + (s[j] - '0');
      ++j;
    }
    for (size_t k = digits; k < 6; ++k) frac_us *= 10;
  }
  *day_us = ((static_cast<int64_t>(h) * 60 + m) * 60 + sec) * kUsPerSecond + frac_us;
  *end = j;
  return true;
}

int64_t ToUs(int64_t y, unsigned mo, unsigned d, int64_t day_us) {
  return DaysFromCivil(y, mo, d) * 86400 * kUsPerSecond + day_us;
}

// English three-letter month name at s[i] -> 1..12, or 0.
unsigned MonthFromName(std::string_view s, size_t i) {
  static constexpr std::string_view kNames[12] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  if (i + 3 > s.size()) return 0;
  for (unsigned k = 0; k < 12; ++k) {
    const std::string_view name = kNames[k];
    if (s[i] == name[0] && s[i + 1] == name[1] && s[i + 2] == name[2]) return k + 1;
  }
  return 0;
}

bool IsWeekdayName(std::string_view s, size_t i) {
  static constexpr std::string_view kNames[7] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  if (i + 3 > s.size()) return false;
  for (auto name : kNames) {
    if (s[i] == name[0] && s[i + 1] == name[1] && s[i + 2] == name[2]) return true;
  }
  return false;
}

// Day of month written as "5", "05" or " 5" at s[i]; stores the offset after it.
bool ReadPaddedDay(std::string_view s, size_t i, unsigned* day, size_t* end) {
  if (At(s, i, ' ')) {
    if (i + 1 >= s.size() || !IsDigit(s[i + 1])) return false;
    *day = static_cast<unsigned>(s[i + 1] - '0');
    *end = i + 2;
    return true;
  }
  uint64_t v = 0;
  const size_t n = scan::ReadUint(s, i, 3, &v);
  if (n == 0 || n > 2) return false;
  *day = static_cast<unsigned>(v);
  *end = i + n;
  return true;
}

}  // namespace

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  // Howard Hinnant's days_from_civil: eras of 400 years, March-based years so
  // that the leap day is the last day of the year.
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

ParsedTime ParseIsoTime(std::string_view s) {
  unsigned y, mo, d;
  if (!ReadFixed(s, 0, 4, &y) || !At(s, 4, '-') || !ReadFixed(s, 5, 2, &mo) || !At(s, 7, '-') ||
      !ReadFixed(s, 8, 2, &d) || !(At(s, 10, 'T') || At(s, 10, ' '))) {
    return {};
  }
  if (!ValidDate(y, mo, d)) return {};
  int64_t day_us;
  size_t j;
  if (!ParseClock(s, 11, ".,", &day_us, &j)) return {};
  int64_t us = ToUs(y, mo, d, day_us);
  if (At(s, j, 'Z')) {
    ++j;
  } else if (At(s, j, '+') || At(s, j, '-')) {
    const int sign = s[j] == '+' ? 1 : -1;
    unsigned oh, om = 0;
    if (ReadFixed(s, j + 1, 2, &oh)) {
      size_t k = j + 3;
      bool ok = true;
      if (At(s, k, ':')) {
        ok = ReadFixed(s, k + 1, 2, &om);
        k += 3;
      } else if (k < s.size() && IsDigit(s[k])) {
        ok = ReadFixed(s, k, 2, &om);
        k += 2;
      }
      if (!ok || oh > 23 || om > 59 || (k < s.size() && IsDigit(s[k]))) return {};
      // Local time = UTC + offset.
      us -= sign * (static_cast<int64_t>(oh) * 60 + om) * 60 * kUsPerSecond;
      j = k;
    }
  }
  return {us, j};
}

ParsedTime ParseGlogTime(std::string_view s, int year) {
  uint64_t mmdd = 0;
  const size_t n = scan::ReadUint(s, 0, 5, &mmdd);
  if ((n != 3 && n != 4) || !At(s, n, ' ')) return {};
  const auto mo = static_cast<unsigned>(mmdd / 100);
  const auto d = static_cast<unsigned>(mmdd % 100);
  if (!ValidDate(year, mo, d)) return {};
  int64_t day_us;
  size_t j;
  if (!ParseClock(s, n + 1, ".", &day_us, &j)) return {};
  return {ToUs(year, mo, d, day_us), j};
}

ParsedTime ParseMonthDayTime(std::string_view s, int year) {
  unsigned mo, d;
  if (!ReadFixed(s, 0, 2, &mo) || !At(s, 2, '-') || !ReadFixed(s, 3, 2, &d) || !At(s, 5, ' ')) {
    return {};
  }
  if (!ValidDate(year, mo, d)) return {};
  int64_t day_us;
  size_t j;
  if (!ParseClock(s, 6, ".", &day_us, &j)) return {};
  return {ToUs(year, mo, d, day_us), j};
}

ParsedTime ParseSyslogTime(std::string_view s, int year) {
  const unsigned mo = MonthFromName(s, 0);
  if (mo == 0 || !At(s, 3, ' ')) return {};
  unsigned d;
  size_t j;
  if (!ReadPaddedDay(s, 4, &d, &j) || !At(s, j, ' ')) return {};
  if (!ValidDate(year, mo, d)) return {};
  int64_t day_us;
  if (!ParseClock(s, j + 1, ".", &day_us, &j)) return {};
  return {ToUs(year, mo, d, day_us), j};
}

ParsedTime ParseCtime(std::string_view s) {
  if (!IsWeekdayName(s, 0) || !At(s, 3, ' ')) return {};
  const unsigned mo = MonthFromName(s, 4);
  if (mo == 0 || !At(s, 7, ' ')) return {};
  unsigned d;
  size_t j;
  if (!ReadPaddedDay(s, 8, &d, &j) || !At(s, j, ' ')) return {};
  int64_t day_us;
  if (!ParseClock(s, j + 1, "", &day_us, &j) || !At(s, j, ' ')) return {};
  unsigned y;
  if (!ReadFixed(s, j + 1, 4, &y) || (j + 5 < s.size() && IsDigit(s[j + 5]))) return {};
  if (!ValidDate(y, mo, d)) return {};
  return {ToUs(y, mo, d, day_us), j + 5};
}

}  // namespace casefile
