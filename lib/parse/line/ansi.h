// Removes ANSI escape sequences (CSI, OSC, two-byte ESC) and their remnants
// that lost the ESC byte in copy-paste ("[36m(RayWorker…", "[0m").
#pragma once

#include <string>
#include <string_view>

namespace casefile {

// Appends `in` without escapes to `out` (cleared first). Returns true when
// anything was removed. Fast path: returns false without copying when `in`
// holds neither ESC nor '['... (callers then use `in` directly).
bool StripAnsi(std::string_view in, std::string& out);

}  // namespace casefile
