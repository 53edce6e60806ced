#pragma once

namespace casefile {

// The library version, "MAJOR.MINOR.PATCH", from CMakeLists.txt.
inline constexpr const char* kVersionString = CASEFILE_VERSION_STRING_INTERNAL;

}  // namespace casefile
