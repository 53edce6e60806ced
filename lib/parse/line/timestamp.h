// Timestamp recognisers for the formats of ../shared/reference/formats.md.
// Each takes the text where a timestamp may start and, on success, returns
// the UTC microseconds and the number of bytes it consumed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace casefile {

struct ParsedTime {
  int64_t us = 0;       // UTC microseconds since the epoch
  size_t consumed = 0;  // 0 = no match
};

// Days since 1970-01-01 of a civil date (proleptic Gregorian).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d);

// "2026-11-29T09:21:26.123Z", "2026-11-29 09:21:26,123", "+02:00" offsets,
// up to 9 fraction digits (truncated to µs), comma or dot decimal.
ParsedTime ParseIsoTime(std::string_view s);
// glog body after the level letter: "1129 09:21:26.123456" (MMDD, no year).
ParsedTime ParseGlogTime(std::string_view s, int year);
// syslog "May 15 23:09:30" (no year).
ParsedTime ParseSyslogTime(std::string_view s, int year);
// "Sun Mar 30 08:24:00 2025" (dmesg -T, ctime).
ParsedTime ParseCtime(std::string_view s);

}  // namespace casefile
