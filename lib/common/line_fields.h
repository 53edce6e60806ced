// Per-line fields shared by the parse stage (which computes them) and the
// index stage (which stores them).
#pragma once

#include <cstdint>
#include <limits>

namespace casefile {

// Stored in place of a timestamp when a line has none we trust.
inline constexpr int64_t kNoTimestamp = std::numeric_limits<int64_t>::min();

enum class Level : uint8_t {
  kUnknown = 0,
  kTrace = 1,
  kDebug = 2,
  kInfo = 3,
  kWarning = 4,
  kError = 5,
  kFatal = 6,
};

// Lower-case name ("info", "error"…); "" for kUnknown.
const char* LevelName(Level level);

// Flags on a stored line.
enum LineFlag : uint32_t {
  kLineTruncated = 1u << 0,    // longer than Limits::max_line_bytes; the rest dropped
  kLineHadFrames = 1u << 1,    // carriage-return frames were reduced to the last non-empty one
  kLineHadAnsi = 1u << 2,      // ANSI escapes (or their remnants) were removed
  kLineInvalidUtf8 = 1u << 3,  // holds bytes that are not valid UTF-8 (kept as is)
  kLineNoNewline = 1u << 4,    // the last line of a file without a final newline
};

}  // namespace casefile
