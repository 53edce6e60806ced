// Byte-level helpers shared by the line-layer recognisers. Everything here is
// inline and allocation-free: it runs several times on every log line. The
// character classes are ASCII-only on purpose (log syntax is ASCII; a byte
// >= 0x80 is never a digit, letter or separator here, whatever the locale).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace casefile::scan {

inline bool IsDigit(char c) { return static_cast<unsigned char>(c - '0') < 10; }
inline bool IsUpper(char c) { return static_cast<unsigned char>(c - 'A') < 26; }
inline bool IsLower(char c) { return static_cast<unsigned char>(c - 'a') < 26; }
inline bool IsAlpha(char c) { return IsUpper(c) || IsLower(c); }
inline bool IsAlnum(char c) { return IsAlpha(c) || IsDigit(c); }
inline bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// True when s[i] exists and equals c.
inline bool At(std::string_view s, size_t i, char c) { return i < s.size() && s[i] == c; }

// True when s holds `lit` at offset i. The first byte is compared inline:
// most calls fail there, and a library memcmp call costs more than the test.
inline bool LiteralAt(std::string_view s, size_t i, std::string_view lit) {
  if (i > s.size() || s.size() - i < lit.size()) return false;
  if (lit.empty()) return true;
  if (s[i] != lit[0]) return false;
  return std::memcmp(s.data() + i + 1, lit.data() + 1, lit.size() - 1) == 0;
}

// Reads between 1 and max_digits decimal digits at s[i]. Returns how many were
// read (0 when s[i] is not a digit) and stores the value in *value. Stops at
// max_digits even if more digits follow; callers that need a digit boundary
// check the next byte themselves. max_digits <= 18 keeps the value in range.
inline size_t ReadUint(std::string_view s, size_t i, size_t max_digits, uint64_t* value) {
  uint64_t v = 0;
  size_t n = 0;
  while (n < max_digits && i + n < s.size() && IsDigit(s[i + n])) {
    v = v * 10 + static_cast<uint64_t>(s[i + n] - '0');
    ++n;
  }
  *value = v;
  return n;
}

// Reads exactly `count` digits at s[i]; false if any of them is missing.
inline bool ReadFixed(std::string_view s, size_t i, size_t count, unsigned* value) {
  if (i > s.size() || s.size() - i < count) return false;
  unsigned v = 0;
  for (size_t k = 0; k < count; ++k) {
    const char c = s[i + k];
    if (!IsDigit(c)) return false;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  *value = v;
  return true;
}

// Index of the first byte at or after i that is not ' '.
inline size_t SkipSpaces(std::string_view s, size_t i) {
  while (i < s.size() && s[i] == ' ') ++i;
  return i;
}

}  // namespace casefile::scan
