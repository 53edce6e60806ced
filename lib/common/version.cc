// The one file compiled with the project version (lib/CMakeLists.txt). The
// header's CASEFILE_VERSION_* macros and the project version in
// CMakeLists.txt must agree; the check below fails the build when one is
// bumped without the other.
#include "common/version.h"

#include "casefile.h"

namespace casefile {
namespace {

// Parses "MAJOR.MINOR.PATCH" into MAJOR*1000000 + MINOR*1000 + PATCH; -1 when
// the string is not of that shape.
constexpr int ParseVersion(const char* s) {
  int parts[3] = {0, 0, 0};
  int part = 0;
  bool digit_seen = false;
  for (; *s != '\0'; ++s) {
    if (*s == '.') {
      if (!digit_seen || part == 2) return -1;
      ++part;
      digit_seen = false;
    } else if (*s >= '0' && *s <= '9') {
      parts[part] = parts[part] * 10 + (*s - '0');
      digit_seen = true;
    } else {
      return -1;
    }
  }
  if (part != 2 || !digit_seen) return -1;
  return parts[0] * 1000000 + parts[1] * 1000 + parts[2];
}

static_assert(ParseVersion(CASEFILE_VERSION_STRING_INTERNAL) == CASEFILE_VERSION_NUMBER,
              "include/casefile.h CASEFILE_VERSION_* differ from the project version");

}  // namespace

const char* const kVersionString = CASEFILE_VERSION_STRING_INTERNAL;

}  // namespace casefile
