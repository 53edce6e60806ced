// Small text helpers the analyzers' summaries share, so that every finding
// writes ranks, counts and times the same way.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace casefile {

// "0-7, 9, 12-15" (sorted, duplicates dropped).
std::string RankRanges(std::vector<int64_t> ranks);
// "a, b, c and d", at most `max_named` of them, then "and N more".
std::string NameList(const std::vector<std::string>& names, size_t max_named);
// "1 rank" / "16 ranks".
std::string Count(size_t n, std::string_view one, std::string_view many);
// "2024-05-01 12:00:01 UTC".
std::string ClockText(int64_t ts_us);
// `s` cut to at most `max` bytes (never inside a UTF-8 sequence) and "..."
// added when cut.
std::string ClipText(std::string_view s, size_t max);
// ASCII case-insensitive search.
bool ContainsNoCase(std::string_view hay, std::string_view needle);

}  // namespace casefile
