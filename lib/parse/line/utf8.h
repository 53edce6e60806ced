// UTF-8 validation for log lines. Invalid bytes are kept as they are in the
// index (evidence must stay byte-exact); the line is only flagged.
#pragma once

#include <string_view>

namespace casefile {

// True when `s` is well-formed UTF-8 (RFC 3629): no overlong forms, no
// surrogates (U+D800..U+DFFF), nothing above U+10FFFF, no truncated sequence.
// Pure ASCII, the common case, is checked eight bytes at a time.
bool IsValidUtf8(std::string_view s);

}  // namespace casefile
