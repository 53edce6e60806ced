// Timestamp recognisers for the formats of shared/reference/formats.md. Each
// takes the text where a timestamp may start and, on success, returns the UTC
// microseconds and the number of bytes it consumed. They never read past the
// end of `s`, never allocate, and reject impossible dates and times (month 13,
// day 32, Feb 29 of a common year, hour 24, minute 60…). Times without a zone
// are taken as UTC.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace casefile {

struct ParsedTime {
  int64_t us = 0;       // UTC microseconds since the epoch
  size_t consumed = 0;  // 0 = no match
};

// Days since 1970-01-01 of a civil date (proleptic Gregorian). No validation.
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d);

// "2026-11-29T09:21:26.123Z", "2026-11-29 09:21:26,123": date, 'T' or ' ',
// HH:MM:SS, then optionally '.' or ',' and 1 to 9 fraction digits (cut to µs;
// 10 or more digits are no match), then optionally a zone: "Z", "+HH:MM",
// "+HHMM" or "+HH" (also '-'), converted to UTC. A second of 60 (leap) is
// accepted and lands on the next minute.
ParsedTime ParseIsoTime(std::string_view s);
// glog / absl body after the level letter: "1129 09:21:26.123456" (MMDD, no
// year). torch prints the month without padding ("321 02:07:08.465150152"),
// so 3 or 4 date digits are read; the last two are the day. The fraction is
// optional, 1 to 9 digits.
ParsedTime ParseGlogTime(std::string_view s, int year);
// vLLM "10-18 09:59:56" (MM-DD, no year; optional '.' fraction of 1 to 9
// digits).
ParsedTime ParseMonthDayTime(std::string_view s, int year);
// syslog "May 15 23:09:30" or "May  5 23:09:30" (no year; English month
// names).
ParsedTime ParseSyslogTime(std::string_view s, int year);
// "Sun Mar 30 08:24:00 2025" (dmesg -T, ctime; the day may be space-padded).
// The weekday must be a weekday name; it is not checked against the date.
ParsedTime ParseCtime(std::string_view s);

}  // namespace casefile
