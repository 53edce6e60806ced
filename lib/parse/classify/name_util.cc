#include "parse/classify/name_util.h"

#include <cstdint>

namespace casefile::classify_internal {

std::string AsciiLowerCopy(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

std::string_view BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start) parts.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

std::string_view StripGz(std::string_view name) {
  if (name.size() > 3) {
    std::string_view tail = name.substr(name.size() - 3);
    if (tail[0] == '.' && AsciiLower(tail[1]) == 'g' && AsciiLower(tail[2]) == 'z') {
      return name.substr(0, name.size() - 3);
    }
  }
  return name;
}

bool StartsWithWord(std::string_view s, std::string_view word) {
  if (s.substr(0, word.size()) != word) return false;
  return s.size() == word.size() || !IsAsciiAlnum(s[word.size()]);
}

bool ContainsWord(std::string_view s, std::string_view word) {
  for (size_t pos = s.find(word); pos != std::string_view::npos; pos = s.find(word, pos + 1)) {
    bool left = pos == 0 || !IsAsciiAlnum(s[pos - 1]);
    size_t end = pos + word.size();
    bool right = end == s.size() || !IsAsciiAlnum(s[end]);
    if (left && right) return true;
  }
  return false;
}

size_t ReadSmallNumber(std::string_view s, size_t pos, int64_t& value) {
  size_t end = pos;
  while (end < s.size() && IsAsciiDigit(s[end])) ++end;
  size_t digits = end - pos;
  if (digits == 0 || digits > 9) return 0;
  int64_t v = 0;
  for (size_t i = pos; i < end; ++i) v = v * 10 + (s[i] - '0');
  value = v;
  return digits;
}

}  // namespace casefile::classify_internal
