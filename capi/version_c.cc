// Library version. The header's CASEFILE_VERSION_* macros and the project
// version in CMakeLists.txt (kVersionString) must agree; the check below fails
// the build when one is bumped without the other.
#include "capi_internal.h"
#include "common/version.h"

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

static_assert(ParseVersion(casefile::kVersionString) == CASEFILE_VERSION_NUMBER,
              "include/casefile.h CASEFILE_VERSION_* differ from the project version");

}  // namespace

extern "C" {

int casefile_version_number(void) { return CASEFILE_VERSION_NUMBER; }

const char* casefile_version_string(void) { return casefile::kVersionString; }

}  // extern "C"
