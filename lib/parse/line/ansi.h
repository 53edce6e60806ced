// Removes ANSI escape sequences (CSI, OSC and other string commands, two-byte
// ESC sequences) and their remnants that lost the ESC byte in copy-paste
// ("[36m(RayWorker…", "[0m"), or that were rendered in caret notation
// ("^[[31m").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace casefile {

// Writes `in` without escapes to `out`. Returns true when anything was
// removed; `out` then holds the cleaned text. Returns false when nothing was
// removed; `out` is then left empty and callers use `in` directly. `out` is
// cleared in both cases and keeps its capacity, so a caller that reuses it
// allocates only for the longest line it sees. `in` must not point into
// `out`.
// Fast path: a line with no ESC byte, no "[<digit>" and no "^[" is not copied
// or scanned further.
bool StripAnsi(std::string_view in, std::string& out);

// Length of the escape sequence, ESC-less SGR remnant or caret-notation CSI
// that starts at s[i]; 0 when none does. An SGR remnant is '[', one to three
// digits per parameter separated by ';', then 'm' ("[36m", "[1;31m"); it is
// not one when a ']' closes it before the next '[' ("[10m]", "[2m 30s]" are
// durations, not colours).
size_t AnsiSequenceAt(std::string_view s, size_t i);

}  // namespace casefile
