// Small helpers over bundle paths shared by the classifier and the path
// attribution. Paths are '/'-separated and already normalised by the bundle
// stage; these helpers never allocate more than one lower-cased copy.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace casefile::classify_internal {

inline bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsAsciiAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool IsAsciiAlnum(char c) { return IsAsciiDigit(c) || IsAsciiAlpha(c); }
inline char AsciiLower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

std::string AsciiLowerCopy(std::string_view s);

// Last '/'-separated component ("" for a path ending in '/').
std::string_view BaseName(std::string_view path);

// The components of `path`, empty ones dropped.
std::vector<std::string_view> SplitPath(std::string_view path);

// Removes one trailing ".gz" (any case).
std::string_view StripGz(std::string_view name);

// True when `s` starts with `word` and the next character, if any, is not a
// letter or digit: "free_m" and "free" start with the word "free", "freeze"
// does not. `s` and `word` are compared as given (callers lower-case first).
bool StartsWithWord(std::string_view s, std::string_view word);

// True when `word` occurs in `s` bounded on both sides by a non-alphanumeric
// character or the string's edge.
bool ContainsWord(std::string_view s, std::string_view word);

// Parses 1 to 9 ASCII digits at `s[pos]`; returns the number of digits read
// (0 when there is none or too many) and stores the value in `value`.
size_t ReadSmallNumber(std::string_view s, size_t pos, int64_t& value);

}  // namespace casefile::classify_internal
