// Text helpers shared by the version-report readers. All ASCII: report
// syntax is ASCII, and a byte >= 0x80 is never a digit or a blank here.
#pragma once

#include <cstddef>
#include <string_view>

namespace casefile::version {

std::string_view TrimLeft(std::string_view s);
std::string_view TrimRight(std::string_view s);  // also drops a CRLF's '\r'
std::string_view Trim(std::string_view s);

// ASCII case-insensitive comparisons.
bool EqualsNoCase(std::string_view a, std::string_view b);
bool StartsWithNoCase(std::string_view s, std::string_view prefix);

// The whitespace-separated token starting at or after *pos; *pos moves past
// it. "" when none is left.
std::string_view NextToken(std::string_view s, size_t* pos);
inline std::string_view FirstToken(std::string_view s) {
  size_t pos = 0;
  return NextToken(s, &pos);
}

inline bool StartsWithDigit(std::string_view s) {
  return !s.empty() && static_cast<unsigned char>(s[0] - '0') < 10;
}

// The longest "D[.D]*" prefix of s ("12.1.105" of "12.1.105,"); "" when s
// does not start with a digit. A trailing '.' is not taken.
std::string_view DottedNumberPrefix(std::string_view s);
// True when all of s is "D[.D]*".
bool IsDottedNumber(std::string_view s);

// Values the reports print for "nothing known": "Could not collect", "N/A",
// "[N/A]", "No CUDA", "None", "NA", "not installed (NA)", "Not Found",
// "[Not Supported]", "<fill in>", "" ...
bool IsNoValue(std::string_view value);

// s without one pair of surrounding quotes ('...' or "...").
std::string_view Unquote(std::string_view s);

}  // namespace casefile::version
