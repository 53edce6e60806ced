#include "parse/flight/json_spans.h"

#include <cstring>

namespace casefile::flight_internal {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool EndsScalar(char c) { return IsBlank(c) || c == ',' || c == ']' || c == '}'; }

}  // namespace

size_t SkipBlanks(std::string_view s, size_t pos) {
  while (pos < s.size() && IsBlank(s[pos])) ++pos;
  return pos;
}

SpanResult SkipString(std::string_view s, size_t pos, std::string_view* raw) {
  const size_t open = pos;
  size_t i = pos + 1;
  while (i < s.size()) {
    const void* hit = std::memchr(s.data() + i, '"', s.size() - i);
    if (hit == nullptr) return {SpanStatus::kTruncated, s.size()};
    size_t quote = static_cast<size_t>(static_cast<const char*>(hit) - s.data());
    // The quote is escaped when an odd number of backslashes precede it.
    size_t backslashes = 0;
    while (quote - backslashes > open + 1 && s[quote - backslashes - 1] == '\\') ++backslashes;
    if (backslashes % 2 == 0) {
      if (raw) *raw = s.substr(open + 1, quote - open - 1);
      return {SpanStatus::kOk, quote + 1};
    }
    i = quote + 1;
  }
  return {SpanStatus::kTruncated, s.size()};
}

SpanResult SkipValue(std::string_view s, size_t pos) {
  if (pos >= s.size()) return {SpanStatus::kTruncated, pos};
  char c = s[pos];
  if (c == '"') return SkipString(s, pos);
  if (c != '{' && c != '[') {
    if (c == ',' || c == ']' || c == '}' || c == ':') return {SpanStatus::kInvalid, pos};
    size_t i = pos;
    while (i < s.size() && !EndsScalar(s[i])) ++i;
    // A scalar that runs into the end may have lost its tail ("12" of "123").
    if (i == s.size()) return {SpanStatus::kTruncated, i};
    return {SpanStatus::kOk, i};
  }
  char closers[kMaxSpanDepth];
  size_t depth = 0;
  size_t i = pos;
  while (i < s.size()) {
    c = s[i];
    if (c == '"') {
      SpanResult str = SkipString(s, i);
      if (str.status != SpanStatus::kOk) return str;
      i = str.pos;
      continue;
    }
    if (c == '{' || c == '[') {
      if (depth == kMaxSpanDepth) return {SpanStatus::kInvalid, i};
      closers[depth++] = c == '{' ? '}' : ']';
    } else if (c == '}' || c == ']') {
      if (closers[depth - 1] != c) return {SpanStatus::kInvalid, i};
      if (--depth == 0) return {SpanStatus::kOk, i + 1};
    }
    ++i;
  }
  return {SpanStatus::kTruncated, s.size()};
}

}  // namespace casefile::flight_internal
