// Finds where JSON values begin and end without decoding them, so that a
// flight-recorder dump can be cut into its top-level members and its
// entries, each then read on its own by simdjson. Cutting first is what
// keeps the entries before a truncation or a damaged byte: simdjson refuses
// a whole document as soon as any part of it is broken.
#pragma once

#include <cstddef>
#include <string_view>

namespace casefile::flight_internal {

enum class SpanStatus {
  kOk,
  kTruncated,  // the text ended inside the value
  kInvalid,    // a byte that cannot be there (or nesting deeper than kMaxSpanDepth)
};

struct SpanResult {
  SpanStatus status = SpanStatus::kOk;
  size_t pos = 0;  // kOk: just past the value; otherwise where the damage is
};

// Deeper nesting is refused: a dump nests five levels at most.
inline constexpr size_t kMaxSpanDepth = 256;

// Skips JSON blanks (space, tab, CR, LF) from `pos`.
size_t SkipBlanks(std::string_view s, size_t pos);

// Skips the value that starts at `pos` (no leading blanks): a string, an
// object or array (brackets matched, strings skipped with their escapes), or
// a scalar token (anything up to the next blank, ',', ']', '}'). Scalars are
// not checked: simdjson does that when the value is read.
SpanResult SkipValue(std::string_view s, size_t pos);

// Skips the string whose opening quote is at `pos`; `raw` receives the text
// between the quotes with its escapes as written.
SpanResult SkipString(std::string_view s, size_t pos, std::string_view* raw = nullptr);

}  // namespace casefile::flight_internal
