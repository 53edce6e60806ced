#include "parse/version/version_text.h"

#include <array>

namespace casefile::version {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v'; }
bool IsDigit(char c) { return static_cast<unsigned char>(c - '0') < 10; }
char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

std::string_view TrimLeft(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && IsSpace(s[i])) ++i;
  return s.substr(i);
}

std::string_view TrimRight(std::string_view s) {
  size_t n = s.size();
  while (n > 0 && IsSpace(s[n - 1])) --n;
  return s.substr(0, n);
}

std::string_view Trim(std::string_view s) { return TrimRight(TrimLeft(s)); }

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && EqualsNoCase(s.substr(0, prefix.size()), prefix);
}

std::string_view NextToken(std::string_view s, size_t* pos) {
  size_t i = *pos;
  while (i < s.size() && IsSpace(s[i])) ++i;
  const size_t start = i;
  while (i < s.size() && !IsSpace(s[i])) ++i;
  *pos = i;
  return s.substr(start, i - start);
}

std::string_view DottedNumberPrefix(std::string_view s) {
  size_t i = 0;
  size_t end = 0;
  while (i < s.size() && IsDigit(s[i])) {
    while (i < s.size() && IsDigit(s[i])) ++i;
    end = i;
    if (i + 1 < s.size() && s[i] == '.' && IsDigit(s[i + 1])) {
      ++i;
    } else {
      break;
    }
  }
  return s.substr(0, end);
}

bool IsDottedNumber(std::string_view s) {
  return !s.empty() && DottedNumberPrefix(s).size() == s.size();
}

bool IsNoValue(std::string_view value) {
  value = Trim(value);
  if (value.empty()) return true;
  static constexpr std::array<std::string_view, 10> kExact = {
      "N/A",       "[N/A]",           "NA",        "None",    "No CUDA",
      "Not Found", "[Not Supported]", "<fill in>", "unknown", "not available"};
  for (std::string_view e : kExact) {
    if (EqualsNoCase(value, e)) return true;
  }
  // Decorated forms: "Could not collect", "not installed (NA)".
  return StartsWithNoCase(value, "Could not collect") || StartsWithNoCase(value, "not installed");
}

std::string_view Unquote(std::string_view s) {
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) {
    return s.substr(1, s.size() - 2);
  }
  return s;
}

}  // namespace casefile::version
